/* -R on library calls recorded as zero-length (setjmp, getcontext: they
 * return twice or switch contexts, so their exit is written before they
 * run): no value to show, not "?"; the other specs of the same run, and
 * setjmp's argument, still are */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

static jmp_buf env;

__attribute__((noinline)) static int work(int n)
{
	if (n == 2)
		longjmp(env, 7);
	return n;
}

int main(void)
{
	ucontext_t uc;
	volatile int n = 0;
	volatile int r = setjmp(env);
	void *volatile p = malloc(32);
	free(p);
	if (r == 0) {
		n = work(1);
		n = work(2);
	}
	getcontext(&uc);
	printf("r=%d n=%d\n", r, n);
	return 0;
}
