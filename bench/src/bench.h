/*
 * bench.h - shared by the benchmark workloads.
 *
 * Every workload prints "result <checksum>" (the same in every build: the
 * harness checks that the traced runs computed what the plain run did).  The
 * counting build (-DBENCH_COUNTING, same -O2 -finstrument-functions flags,
 * linked with hooks/count.c) also prints "calls <N>": the exact number of
 * instrumented function entries, main and thread functions included.
 */
#ifndef BENCH_H
#define BENCH_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

#ifdef BENCH_COUNTING
unsigned long long bench_calls(void);
#define BENCH_PRINT_CALLS() printf("calls %llu\n", bench_calls())
#else
#define BENCH_PRINT_CALLS() ((void)0)
#endif

static inline unsigned long bench_arg(int argc, char **argv, int i, unsigned long dflt)
{
	return argc > i ? strtoul(argv[i], NULL, 0) : dflt;
}
#endif
