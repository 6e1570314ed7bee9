/* Hand-made vforks: clone(CLONE_VM | CLONE_VFORK | SIGCHLD) by a `syscall`
 * instruction written inline in main, as linux_syscall_support.h's
 * sys_vfork is.  No wrapper of libc's sees it.  Each child runs on its
 * parent's own stack and thread-local storage while the parent waits in
 * the kernel, until it leaves: the first by _exit inside a function after
 * 1000 calls, the second by execve after one call.  The children cannot
 * be told from their parent thread by anything it shares with them; they
 * must not be recorded as the parent, and the parent's calls, before and
 * after, must all be there, nested as made.  (Before: the children's
 * calls were recorded as the parent thread's, and the -pg build closed
 * the frame the first child left open inside main, as unwound.) */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALLS 1000

__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int in_child(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int after_exec(int x) { __asm__ volatile(""); return x + 3; }

/* the first child: calls, then _exit from inside this frame */
__attribute__((noinline, noreturn)) void child_work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s = in_child(s);
	_exit(s == n ? 0 : 1);
}

/* the second: one call, then exec */
__attribute__((noinline, noreturn)) void child_exec(const char *self)
{
	char *argv[] = {(char *)self, (char *)"exec", NULL};
	in_child(0);
	execve(self, argv, environ);
	_exit(127);
}

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

int main(int argc, char **argv)
{
	int st1, st2, s = 0;
	long pid1, pid2;

	if (argc > 1 && !strcmp(argv[1], "exec"))
		return after_exec(0) == 3 ? 0 : 1;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	RAW_VFORK(pid1);
	if (pid1 == 0)
		child_work(CALLS);
	if (pid1 < 0 || waitpid((pid_t)pid1, &st1, 0) != pid1 || !WIFEXITED(st1) || WEXITSTATUS(st1))
		return 10;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	RAW_VFORK(pid2);
	if (pid2 == 0)
		child_exec(argv[0]);
	if (pid2 < 0 || waitpid((pid_t)pid2, &st2, 0) != pid2 || !WIFEXITED(st2) || WEXITSTATUS(st2))
		return 11;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	printf("%d\n", s);
	fprintf(stderr, "pids %ld %ld\n", pid1, pid2);
	return 0;
}
