/* main calls step N times, step calls leaf: a run of chunks whose middle
 * one the check makes go missing. */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int step(int x) { return leaf(x) * 3 % 1000003; }
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int x = 1;
	for (long i = 0; i < n; i++)
		x = step(x);
	printf("done %ld (%d)\n", n, x);
	return 0;
}
