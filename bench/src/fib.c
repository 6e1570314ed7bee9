/*
 * fib.c - deep recursion of tiny functions: naive Fibonacci.
 * fib(n) makes 2*F(n+1)-1 calls of fib (plus main).
 *
 *   fib [n=30]
 */
#include "bench.h"

NOINLINE unsigned long fib(unsigned n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	unsigned n = bench_arg(argc, argv, 1, 30);

	printf("result %lu\n", fib(n));
	BENCH_PRINT_CALLS();
	return 0;
}
