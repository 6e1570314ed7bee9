/* fib(30) with its arguments and return values recorded: 1.3-2.7 M calls
 * (as the compiler keeps them), a trace of 26-50 MB whose long calls span
 * many chunks */
#include <stdio.h>

__attribute__((noinline)) long fib(long n, long unused)
{
	return n < 2 ? n + unused : fib(n - 1, unused) + fib(n - 2, unused);
}

int main(void)
{
	printf("%ld\n", fib(30, 0));
	return 0;
}
