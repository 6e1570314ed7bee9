/* libc's clone() used directly, the three ways that do not go through
 * pthread_create or fork:
 *   SIGCHLD only: a process like a forked one, which pthread_atfork never
 *     hears of (it wrote into the parent's file);
 *   CLONE_VM without CLONE_SETTLS: a process on the parent's memory and
 *     TLS (it lost most of its events, counted as "signal" losses);
 *   CLONE_THREAD without CLONE_SETTLS: a thread on the parent's TLS (the
 *     program died of SIGSEGV).
 * The first is traced as a process of its own; the other two cannot be
 * (no TLS of their own) and are counted as lost.  Last, a CLONE_VM child
 * that execs (a hand-made spawn): the image it execs is traced, and the
 * parent records again once the child is gone. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALLS 1000
static char stacks[4][256 << 10] __attribute__((aligned(16)));
static volatile pid_t thread_tid;
static char *self;

__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int in_clone_child(int x) { __asm__ volatile(""); return x + 1; }

/* uses no libc function that needs TLS (errno): two of the children have none of their own */
__attribute__((noinline)) int child_fn(void *arg)
{
	int s = 0;
	(void)arg;
	for (int i = 0; i < CALLS; i++)
		s = in_clone_child(s);
	return s == CALLS ? 0 : 1;
}

__attribute__((noinline)) int after_exec(int x) { __asm__ volatile(""); return x + 3; }

__attribute__((noinline)) int exec_fn(void *arg)
{
	(void)arg;
	execl(self, self, "exec", (char *)NULL);
	return 127;
}

int main(int argc, char **argv)
{
	int st, r = 0;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "exec"))
		return after_exec(0) == 3 ? 0 : 1;
	self = argv[0];
	in_parent(0);
	pid = clone(child_fn, stacks[0] + sizeof(stacks[0]), SIGCHLD, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 10;
	in_parent(1);
	pid = clone(child_fn, stacks[1] + sizeof(stacks[1]), CLONE_VM | SIGCHLD, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 11;
	in_parent(2);
	/* the kernel clears thread_tid when the thread is gone (CLONE_CHILD_CLEARTID) */
	pid = clone(child_fn, stacks[2] + sizeof(stacks[2]),
		    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
		    CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID, NULL, &thread_tid, NULL, &thread_tid);
	if (pid < 0)
		return 12;
	while ((r = thread_tid) != 0)
		syscall(SYS_futex, &thread_tid, FUTEX_WAIT, r, NULL, NULL, 0);
	in_parent(3);
	pid = clone(exec_fn, stacks[3] + sizeof(stacks[3]), CLONE_VM | SIGCHLD, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 13;
	in_parent(4);      /* its entry is dropped: the parent learns here that the child is gone */
	in_parent(5);
	printf("ok\n");
	return 0;
}
