/* library calls: qsort with an instrumented comparator nests its calls;
 * the program counts its own qsort/malloc/free calls and prints them, and
 * check.py compares those with what was recorded */
#include <stdio.h>
#include <stdlib.h>

static int n_qsort, n_malloc, n_free;
static void *volatile keep[8];

__attribute__((noinline)) static int by_value(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static int *make(int n)
{
	int *v = malloc((size_t)n * sizeof(int));
	n_malloc++;
	for (int i = 0; i < n; i++)
		v[i] = (i * 7 + 3) % n;
	return v;
}

__attribute__((noinline)) static void sort(int *v, int n)
{
	qsort(v, (size_t)n, sizeof(int), by_value);
	n_qsort++;
}

int main(void)
{
	for (int k = 0; k < 3; k++) {
		int *v = make(3);
		keep[k] = v;
		sort(v, 3);
		free(keep[k]);
		n_free++;
	}
	printf("qsort=%d malloc=%d free=%d\n", n_qsort, n_malloc, n_free);
	return 0;
}
