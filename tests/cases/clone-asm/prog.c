/* Children made by a hand-written `syscall` instruction, which no wrapper
 * of libc's (clone, syscall, fork) sees:
 *   SIGCHLD only, on the same stack: a process like a forked one (as
 *     Chromium's and crash handlers' raw clones are);
 *   CLONE_VM on a stack of its own, no TLS of its own: it runs on its
 *     parent thread's thread-local storage, while the parent waits.
 * The first must be traced as a process of its own, the second skipped and
 * counted; neither may write into the parent's chunk, and the program must
 * run as it does untraced. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALLS 1000
static char stack[256 << 10] __attribute__((aligned(16)));

__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }
/* child_fn, in_child; RAW and raw_clone are not traced themselves: the
 * counts are the children's calls */
#include "raw-clone.h"

/* clone(flags, 0): both return, the child with 0 */
RAW static long raw_fork(unsigned long flags)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_clone), "D"(flags), "S"(0L), "d"(0L)
			 : "rcx", "r11", "r8", "r10", "memory");
	return ret;
}

int main(void)
{
	int st, s = 0;
	long pid;

	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	pid = raw_fork(SIGCHLD);
	if (pid == 0) {
		int c = 0;
		for (int i = 0; i < 3 * CALLS; i++)
			c = in_child(c);
		syscall(SYS_exit_group, c == 3 * CALLS ? 0 : 1);
	}
	fprintf(stderr, "fork-like child %ld\n", pid);
	if (pid < 0 || waitpid((pid_t)pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 10;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	pid = raw_clone(CLONE_VM | SIGCHLD, stack + sizeof(stack), child_fn, NULL);
	if (pid < 0 || waitpid((pid_t)pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 11;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	printf("%d\n", s);
	return 0;
}
