/* 10,000,000 entries and no exit: even and odd in turn, each "called" by
 * the one before, as if a mutual recursion never returned.  main is not
 * traced and calls the entry hook itself, so no stack grows. */
#include <stdio.h>
#include <stdlib.h>

void __cyg_profile_func_enter(void *fn, void *site);

__attribute__((noinline)) void even(void) { }
__attribute__((noinline)) void odd(void) { }

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	for (long i = 0; i < n; i++)
		__cyg_profile_func_enter(i & 1 ? (void *)odd : (void *)even, (void *)main);
	printf("%ld\n", n);
	return 0;
}
