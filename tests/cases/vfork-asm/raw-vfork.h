/* A hand-made vfork, as linux_syscall_support.h's sys_vfork makes it: no
 * wrapper of libc's sees it (shared by the vfork-asm and vfork-return
 * cases). */
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

/* clone(CLONE_VM | CLONE_VFORK | SIGCHLD, stack 0): the child goes on
 * from here, on this stack; the parent when the child is gone */
#define RAW_VFORK(ret)                                                                                     \
	do {                                                                                               \
		register long r10_ __asm__("r10") = 0;                                                     \
		register long r8_ __asm__("r8") = 0;                                                       \
		__asm__ volatile("syscall"                                                                 \
				 : "=a"(ret)                                                               \
				 : "0"((long)SYS_clone), "D"((long)(CLONE_VM | CLONE_VFORK | SIGCHLD)),    \
				   "S"(0L), "d"(0L), "r"(r10_), "r"(r8_)                                  \
				 : "rcx", "r11", "memory");                                                \
	} while (0)
