/* fnt_disable() with values to capture: while recording is off, a call
 * of a function that has an -A/-R spec (f, g, h's callees) and a library
 * call that has one (abs, labs) record nothing, as every other call does;
 * once it is back on they record their values.  inside() turns recording
 * off from within a call recorded with its argument (its return, which
 * comes while recording is off, is recorded: it was open when recording
 * went off; f(30) inside it is not), and back() turns
 * it on from within a call entered while it was off (nothing of that call
 * is recorded). */
/* built with -fno-builtin: abs and labs are calls into libc */
#include <stdio.h>
#include <stdlib.h>
#include "fntrace.h"

static volatile int sink;
/* read through volatile: abs and labs are declared const, and clang -O2
 * would call them once for the whole loop */
static volatile int m5 = -5, m6 = -6, m7 = -7, m8 = -8;

__attribute__((noinline)) int f(int x) { sink += x; return x + 1; }
__attribute__((noinline)) int g(int x) { sink += x; return x + 2; }
__attribute__((noinline)) int h(int x) { return f(x) + g(x) + abs(-x); }
__attribute__((noinline)) int inside(int x) { fnt_disable(); return f(x) + 1; }
__attribute__((noinline)) int back(int x) { fnt_enable(); return g(x) + 1; }

int main(void)
{
	long r = 0;
	for (int i = 0; i < 3; i++) {
		fnt_disable();
		r += f(1) + g(1) + h(10) + abs(m5) + labs(m6);
		fnt_enable();
		r += f(2) + g(2) + h(20) + abs(m7) + labs(m8);
	}
	r += inside(30);
	r += g(31) + abs(-32);
	r += back(40);
	r += f(41) + labs(-42);
	printf("%ld\n", r);
	return 0;
}
