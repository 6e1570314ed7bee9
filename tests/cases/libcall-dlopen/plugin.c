#include <stdlib.h>

__attribute__((noinline)) static int plugin_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int plugin_sort(int n)
{
	int *v = malloc((size_t)n * sizeof(int));
	for (int i = 0; i < n; i++)
		v[i] = n - i;
	qsort(v, (size_t)n, sizeof(int), plugin_cmp);
	int first = v[0];
	free(v);
	return first;
}
