/* library calls from a -pg -mfentry build (its own return-address swaps and
 * the library calls' share one shadow stack), across fork and vfork: the
 * forked child returns through the copy of the shadow stack, the vfork
 * child shares the parent's stack and must not touch it: vfork is a
 * zero-length call and _exit keeps its return address, in both children */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static int in_child(int k)
{
	int v[3] = { 3, k, 1 };
	qsort(v, 3, sizeof(int), cmp);
	return v[0];
}

int main(void)
{
	int v[3] = { 2, 3, 1 };
	qsort(v, 3, sizeof(int), cmp);
	fflush(stdout);
	pid_t p = fork();
	if (p == 0)
		_exit(in_child(0));
	int st = 0;
	waitpid(p, &st, 0);
	pid_t q = vfork();
	if (q == 0)
		_exit(7);
	int st2 = 0;
	waitpid(q, &st2, 0);
	printf("%d %d %d child=%d vfork=%d\n", v[0], v[1], v[2], WEXITSTATUS(st), WEXITSTATUS(st2));
	return 0;
}
