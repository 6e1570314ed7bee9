/* Hand-made vforks: clone(CLONE_VM | CLONE_VFORK | SIGCHLD) by a `syscall`
 * instruction written inline, as linux_syscall_support.h's sys_vfork is.
 * No wrapper of libc's sees it.  Each child runs on its parent's own stack
 * and thread-local storage while the parent waits in the kernel, until it
 * leaves: the first by _exit inside a function after 1000 calls, the
 * second by execve after one call, the third (made in a function that
 * returns as soon as the parent resumes, so that the parent's first event
 * then is a return) by _exit after 1000 calls.  The children cannot be
 * told from their parent thread by anything it shares with them; each
 * must be traced as a process of its own, never as the parent, and the
 * parent's calls, before, between and after, must all be there, nested as
 * made.  (Before: the children's calls were recorded as the parent
 * thread's, and the -pg build closed the frames the children left open,
 * in the parent, as unwound.) */
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

#include "raw-vfork.h"

/* the third: the parent returns from here at once */
__attribute__((noinline)) long spawn_and_return(void)
{
	long pid;
	RAW_VFORK(pid);
	if (pid == 0)
		child_work(CALLS);
	return pid;
}

int main(int argc, char **argv)
{
	int st1, st2, st3, s = 0;
	long pid1, pid2, pid3;

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
	pid3 = spawn_and_return();
	if (pid3 < 0 || waitpid((pid_t)pid3, &st3, 0) != pid3 || !WIFEXITED(st3) || WEXITSTATUS(st3))
		return 12;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	printf("%d\n", s);
	fprintf(stderr, "pids %ld %ld %ld\n", pid1, pid2, pid3);
	return 0;
}
