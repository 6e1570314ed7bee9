/* fntrace tui with -pg -mfentry and record -A/-R: the replay view shows the
 * recorded arguments and return values, and the marks, as `fntrace replay` does */
#include "fntrace.h"

#define noinline __attribute__((noinline))

volatile int sink;

noinline int gcd(int a, int b)
{
	int r = b ? gcd(b, a % b) : a;
	sink += r;              /* after the call: no tail call, a frame per level at -O2 too */
	return r;
}

noinline void report(const char *what, int value)
{
	sink += value + what[0];
	fnt_mark("reported");        /* a mark inside a call: the call opens, the mark is a line */
}

int main(void)
{
	report("gcd", gcd(12, 18));
	return 0;
}
