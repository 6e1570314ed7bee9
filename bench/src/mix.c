/*
 * mix.c - the realistic mix (mixcore.h) on one thread.
 *
 *   mix [items=100000]
 */
#include "mixcore.h"

int main(int argc, char **argv)
{
	size_t n = bench_arg(argc, argv, 1, 100000);

	printf("result %llu\n", (unsigned long long)run_mix(n, 42));
	BENCH_PRINT_CALLS();
	return 0;
}
