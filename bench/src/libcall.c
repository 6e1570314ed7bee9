/*
 * libcall.c - the cost of one library call: a loop in the executable that
 * calls lc_step(), a trivial function of a small shared library built
 * without instrumentation (liblc.c), N times through the PLT.  The
 * executable's own instrumented functions are main and nothing else, so a
 * tracer's extra time over its run with library calls off is the library
 * calls' alone.  The harness also links it, uninstrumented, against the
 * same library built with -pg -mfentry: the same calls, traced as fentry
 * functions.
 *
 *   libcall [n=1000000]
 */
#include "bench.h"

unsigned long lc_step(unsigned long acc, unsigned long i);

int main(int argc, char **argv)
{
	unsigned long n = bench_arg(argc, argv, 1, 1000000), acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc = lc_step(acc, i);
	printf("result %lu\n", acc);
	BENCH_PRINT_CALLS();
	return 0;
}
