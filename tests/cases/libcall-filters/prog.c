/* record-time -F/-N/-D name library functions like any other */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static void sort3(int *v)
{
	qsort(v, 3, sizeof(int), cmp);
}

__attribute__((noinline)) static void scratch(void)
{
	void *volatile p = malloc(8);
	free(p);
}

int main(void)
{
	int v[3] = { 3, 1, 2 };
	sort3(v);
	scratch();
	printf("%d %d %d\n", v[0], v[1], v[2]);
	return 0;
}
