/* vfork: each child runs on its parent's memory and TLS until it execs or
 * exits, while a worker thread of the parent goes on recording.  Every
 * child is traced as a process of its own, under its own pid: the first
 * makes enough calls to fill several chunks and leaves by _exit inside a
 * function; the second makes one call and execs, and the image it execs is
 * traced too.  A third, made by clone(CLONE_VM | CLONE_VFORK) on a stack of
 * its own (a hand-made spawn), runs a function and returns.  The parent's
 * and the worker's calls are all there, in order.
 * (Before: the children's calls were counted as lost, or, earlier still,
 * written into the parent thread's stream.) */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_CALLS 200000
#define WORKER_CALLS 300000

__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int in_vfork_child(int x) { __asm__ volatile(""); return x + 2; }
__attribute__((noinline)) void vfork_child(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s = in_vfork_child(s);
	_exit(s == 2 * n ? 0 : 1);       /* never returns: its frame stays open */
}
__attribute__((noinline)) int after_exec(int x) { __asm__ volatile(""); return x + 3; }
__attribute__((noinline)) int spawn_fn(void *arg)
{
	int s = 0;
	(void)arg;
	for (int i = 0; i < 1000; i++)
		s = in_vfork_child(s);
	return s == 2000 ? 0 : 1;
}
static char spawn_stack[256 << 10] __attribute__((aligned(16)));
__attribute__((noinline)) int worker_call(int x) { __asm__ volatile(""); return x + 1; }

__attribute__((noinline)) void *worker(void *arg)
{
	long s = 0;
	(void)arg;
	for (int i = 0; i < WORKER_CALLS; i++)
		s = worker_call((int)s);
	return (void *)s;
}

int main(int argc, char **argv)
{
	int st1, st2, st3, s = 0;
	pid_t pid1, pid2, pid3;
	pthread_t th;
	void *w;

	if (argc > 1 && !strcmp(argv[1], "exec"))
		return after_exec(0) == 3 ? 0 : 1;
	pthread_create(&th, NULL, worker, NULL);
	s += in_parent(s);
	pid1 = vfork();
	if (pid1 == 0)
		vfork_child(CHILD_CALLS);
	waitpid(pid1, &st1, 0);
	s += in_parent(s);
	pid2 = vfork();
	if (pid2 == 0) {
		in_vfork_child(2);
		execl(argv[0], argv[0], "exec", (char *)NULL);
		_exit(127);
	}
	waitpid(pid2, &st2, 0);
	s += in_parent(s);
	pid3 = clone(spawn_fn, spawn_stack + sizeof(spawn_stack), CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	waitpid(pid3, &st3, 0);
	s += in_parent(s);
	pthread_join(th, &w);
	printf("%d %d %d %d %ld\n", s, WIFEXITED(st1) ? WEXITSTATUS(st1) : -1, WIFEXITED(st2) ? WEXITSTATUS(st2) : -1,
	       WIFEXITED(st3) ? WEXITSTATUS(st3) : -1, (long)w);
	fprintf(stderr, "pids %d %d %d\n", (int)pid1, (int)pid2, (int)pid3);
	return 0;
}
