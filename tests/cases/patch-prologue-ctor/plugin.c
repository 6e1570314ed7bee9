/* an uninstrumented plugin whose constructor calls the functions -P
 * selects: dlopen runs it before returning */
#include <stdio.h>
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif
volatile long plug_calls;

NOINLINE long plug_step(long x)
{
	plug_calls++;
	return x * 2 + 1;
}

NOINLINE long plug_run(long n)
{
	long s = 0;
	plug_calls++;
	for (long i = 0; i < n; i++)
		s += plug_step(i);
	return s;
}

__attribute__((constructor)) NOINLINE void plug_init(void)
{
	plug_calls += plug_run(3);
}
