/* Children cloned from a thread that has made no traced call yet, by each
 * route a program has: libc's clone() (CLONE_VM, a stack of its own),
 * libc's syscall(SYS_clone) (CLONE_VM | CLONE_VFORK, the same stack), and
 * a `syscall` instruction written inline (CLONE_VM on a stack of its own,
 * and a hand-made vfork on the same stack).  Each child runs on its parent
 * thread's thread-local storage and makes 1000 calls; the thread then
 * makes 1000 calls of its own.  The runtime has never seen the thread, so
 * the child's first event was taken for the thread's: the child was named
 * the thread, and the thread's own calls were then dropped as a
 * stranger's.  Each thread must have exactly its 1000 calls. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../vfork-asm/raw-vfork.h"

#define CALLS 1000
static char stack[256 << 10] __attribute__((aligned(16)));

__attribute__((noinline)) int in_thread(int x) { __asm__ volatile(""); return x + 1; }
/* child_fn, in_child; RAW and raw_clone are not traced themselves: the
 * threads' first traced calls are after the clone */
#include "../clone-asm/raw-clone.h"

RAW static void raw_exit(long code)
{
	__asm__ volatile("syscall" : : "a"((long)SYS_exit), "D"(code) : "rcx", "r11", "memory");
	__builtin_unreachable();
}

/* the child of a clone through syscall() returns into it on its parent's
 * stack, where the parent still needs syscall()'s return address: it
 * leaves that stack for its own before any call, then exits */
#define RUN_ON(top, fn)                                                                                    \
	__asm__ volatile("mov %0, %%rsp\n\t"                                                               \
			 "xor %%ebp, %%ebp\n\t"                                                              \
			 "xor %%edi, %%edi\n\t"                                                              \
			 "call *%1\n\t"                                                                        \
			 "mov %%eax, %%edi\n\t"                                                              \
			 "mov $60, %%eax\n\t"                                                                  \
			 "syscall\n\t"                                                                         \
			 "hlt"                                                                                   \
			 : : "r"(top), "r"(fn) : "memory")

enum { LIBC_CLONE, LIBC_SYSCALL, ASM_CLONE, ASM_VFORK, ROUTES };
static const char *const names[ROUTES] = { "clone", "syscall", "asm-clone", "asm-vfork" };
static long child_pid[ROUTES];

RAW static void *thread_fn(void *arg)
{
	int route = (int)(long)arg, st, s = 0;
	long pid = -1;

	switch (route) {
	case LIBC_CLONE:
		pid = clone(child_fn, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL);
		break;
	case LIBC_SYSCALL:
		pid = syscall(SYS_clone, CLONE_VM | CLONE_VFORK | SIGCHLD, 0L, 0L, 0L, 0L);
		if (pid == 0)
			RUN_ON(stack + sizeof(stack), child_fn);
		break;
	case ASM_CLONE:
		pid = raw_clone(CLONE_VM | SIGCHLD, stack + sizeof(stack), child_fn, NULL);
		break;
	case ASM_VFORK:
		RAW_VFORK(pid);
		if (pid == 0)
			raw_exit(child_fn(NULL));
		break;
	}
	if (pid <= 0 || waitpid((pid_t)pid, &st, __WALL) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return (void *)1;
	child_pid[route] = pid;
	for (int i = 0; i < CALLS; i++)
		s = in_thread(s);
	return s == CALLS ? NULL : (void *)1;
}

RAW int main(void)
{
	for (int r = 0; r < ROUTES; r++) {
		pthread_t th;
		void *ret;
		if (pthread_create(&th, NULL, thread_fn, (void *)(long)r) || pthread_join(th, &ret) || ret)
			return 10 + r;
	}
	for (int r = 0; r < ROUTES; r++)
		printf("%s %ld\n", names[r], child_pid[r]);
	return 0;
}
