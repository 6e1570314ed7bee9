/* siglongjmp out of a signal handler that runs inside a library call
 * (raise), and out of a qsort callback: the library calls it leaves close
 * as unwound, and the calls after go on at the depth they were made */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static sigjmp_buf env;
static int calls;
static volatile int depth;

__attribute__((noinline)) static void on_usr1(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

__attribute__((noinline)) static int cmp_jump(const void *a, const void *b)
{
	if (++calls == 2)
		siglongjmp(env, 2);
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static void raiser(int n)
{
	depth++;                /* (not a tail call: three frames at -O2 too) */
	if (n)
		raiser(n - 1);
	else
		raise(SIGUSR1);
	depth--;
}

__attribute__((noinline)) static int from_handler(void)
{
	if (sigsetjmp(env, 1))
		return 1;
	raiser(2);
	return 0;
}

__attribute__((noinline)) static int from_callback(void)
{
	int v[4] = { 4, 2, 3, 1 };
	if (sigsetjmp(env, 1))
		return 2;
	qsort(v, 4, sizeof(int), cmp_jump);
	return 0;
}

__attribute__((noinline)) static int after(int x)
{
	return x * 2;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	int a = from_handler();
	int b = from_callback();
	printf("%d %d %d\n", a, b, after(calls));
	return 0;
}
