/* -P on a program built with no instrumentation, with record-time
 * filters and triggers that name its functions: they apply as they do to
 * a -pg -mfentry build (before, their names were never looked up in a
 * module that calls no hook, and -F recorded nothing). */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) long leaf(long x) { sink += x; return x * 2; }
__attribute__((noinline)) long mid(long x) { return leaf(x) + leaf(x + 1); }
__attribute__((noinline)) long top(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += mid(i);
	return s + leaf(100);
}

int main(void)
{
	printf("%ld\n", top(3));
	return 0;
}
