/* A backtrace trigger on a function with values to capture, whose entry is
 * its thread's first event (main; a thread's start routine; a forked
 * child's first call): the arguments stay with the call, before the
 * trigger's stack (before, they came after it and the call showed `?`). */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) long leaf(long x) { return x * 2; }
static void *thr(void *a) { return (void *)leaf((long)a); }

int main(int argc, char **argv)
{
	pthread_t t;
	void *v;
	(void)argv;
	pthread_create(&t, 0, thr, (void *)7);
	pthread_join(t, &v);
	pid_t p = fork();
	if (p == 0)
		_exit((int)leaf(5));
	int st = 0;
	waitpid(p, &st, 0);
	printf("argc=%d thr=%ld child=%d\n", argc, (long)v, WEXITSTATUS(st));
	return 0;
}
