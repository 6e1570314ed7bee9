/* the flight recorder: 100000 iterations, each calling g<i%7> then
 * h<i%11>, into a 64K ring: the trace must hold exactly a contiguous tail of
 * the iterations, ending with the last one */
#include <stdio.h>

static volatile long sink;
#define LEAF(name) __attribute__((noinline)) void name(long i) { sink += i; }
LEAF(g0) LEAF(g1) LEAF(g2) LEAF(g3) LEAF(g4) LEAF(g5) LEAF(g6)
LEAF(h0) LEAF(h1) LEAF(h2) LEAF(h3) LEAF(h4) LEAF(h5) LEAF(h6) LEAF(h7) LEAF(h8) LEAF(h9) LEAF(h10)

static void (*const gs[7])(long) = { g0, g1, g2, g3, g4, g5, g6 };
static void (*const hs[11])(long) = { h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10 };

__attribute__((noinline)) void loop(long n)
{
	for (long i = 0; i < n; i++) {
		gs[i % 7](i);
		hs[i % 11](i);
	}
}

__attribute__((noinline)) void last(void) { sink++; }

int main(void)
{
	loop(100000);
	last();
	return 0;
}
