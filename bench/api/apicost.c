/*
 * apicost.c - what the in-program API costs (include/fntrace.h), measured
 * by the program itself: a loop of N iterations of each construct, minus
 * the same loop with nothing in it, in ns per iteration.  Not built with
 * -finstrument-functions: the scopes are the only traced calls.
 *
 *   apicost [n=20000000]     prints "api <what> <ns per iteration>"
 *
 * Built with FNT_WEAK and without -lfntrace, it runs without the runtime
 * (every call a null check) and under `fntrace record` (the preloaded
 * runtime provides the symbols).
 */
#define FNT_WEAK
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "fntrace.h"

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

__attribute__((noinline)) static void empty(unsigned long i) { sink += i; }
__attribute__((noinline)) static void scoped(unsigned long i) { FNT_SCOPE(); sink += i; }
__attribute__((noinline)) static void named(unsigned long i) { FNT_SCOPE_NAMED("named"); sink += i; }
__attribute__((noinline)) static void marked(unsigned long i) { fnt_mark("m"); sink += i; }

static double run(void (*f)(unsigned long), unsigned long n)
{
	double t = now();
	for (unsigned long i = 0; i < n; i++)
		f(i);
	return now() - t;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000000;
	double base = run(empty, n);
	printf("api FNT_SCOPE %.2f\n", (run(scoped, n) - base) / n);
	printf("api FNT_SCOPE_NAMED %.2f\n", (run(named, n) - base) / n);
	if (!FNT__ON())   /* not recording: the guard alone */
		printf("api fnt_mark %.2f\n", (run(marked, n) - base) / n);
	printf("result %lu\n", sink ? 1ul : 0ul);
	return 0;
}
