/* exit() from inside a library call's callback: the program ends with its
 * status, the output flushed, and the trace holds every call up to exit */
#include <stdio.h>
#include <stdlib.h>

static int calls;

__attribute__((noinline)) static void bye(void)
{
	printf("atexit handler after %d comparisons\n", calls);
}

__attribute__((noinline)) static int cmp_then_exit(const void *a, const void *b)
{
	if (++calls == 2)
		exit(3);
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	int v[4] = { 4, 2, 3, 1 };
	atexit(bye);
	qsort(v, 4, sizeof(int), cmp_then_exit);
	printf("not reached\n");
	return 0;
}
