/* -P on this program built without instrumentation, then stripped: a
 * stripped executable has no symbol table, so -P can name none of its
 * functions */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) void sort3(int *v)
{
	qsort(v, 3, sizeof(int), cmp);
}

int main(void)
{
	int v[3] = { 3, 1, 2 };
	sort3(v);
	printf("%d %d %d\n", v[0], v[1], v[2]);
	return 0;
}
