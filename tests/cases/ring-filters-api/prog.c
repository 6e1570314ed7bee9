/* the flight recorder and fnt_disable() with the record-time filters.
 * "ring": 20000 iterations of work(i) { tiny(); noise() { hidden() }; spin<i%5>() (15 us); tiny(); }
 *         recorded with --ring 32K -F work -N noise -t 10us: the ring keeps a contiguous
 *         tail of work { spinK } pairs across many rewritten chunks and -t erasures.
 * "disable": a -F root and a -N root return while recording is disabled; after
 *         fnt_enable() the filters must be back outside both subtrees. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "fntrace.h"

static volatile long sink;

__attribute__((no_instrument_function)) static void busy_us(long us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < us * 1000L);
}

#define SPIN(name) __attribute__((noinline)) void name(long i) { sink += i; busy_us(15); }
SPIN(spin0) SPIN(spin1) SPIN(spin2) SPIN(spin3) SPIN(spin4)
static void (*const spins[5])(long) = { spin0, spin1, spin2, spin3, spin4 };

__attribute__((noinline)) void tiny(long i) { sink += i; }
__attribute__((noinline)) void hidden(long i) { sink += i; busy_us(12); }
__attribute__((noinline)) void noise(long i) { hidden(i); }
__attribute__((noinline)) void work(long i)
{
	tiny(i);
	noise(i);
	spins[i % 5](i);
	tiny(i);
}

__attribute__((noinline)) void inner(void) { sink++; }
__attribute__((noinline)) void outside(void) { sink++; }
__attribute__((noinline)) void froot(int off)
{
	inner();
	if (off)
		fnt_disable();
}
__attribute__((noinline)) void nroot(int off)
{
	inner();
	if (off)
		fnt_disable();
}
__attribute__((noinline)) void after(void) { inner(); }

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "ring")) {
		for (long i = 0; i < 20000; i++)
			work(i);
		return 0;
	}
	/* disable */
	froot(1);      /* -F froot: its subtree opens, and it returns while disabled */
	fnt_enable();
	outside();     /* outside every -F subtree again: not recorded with -F */
	froot(0);
	nroot(1);      /* -N nroot: hidden subtree, left while disabled */
	fnt_enable();
	after();       /* not hidden any more: recorded with -N */
	return 0;
}
