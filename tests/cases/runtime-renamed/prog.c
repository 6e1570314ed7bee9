/* the runtime under another file name (FNTRACE_LIBRARY=/some/rt.so, a
 * distribution's own name for it): it must still know its own module, by
 * address, and never hook its own library calls (an endless recursion
 * through its shadow stack's first mmap) or patch its own prologues */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static int work(int n)
{
	int v[4] = { n, 3, 1, 2 };
	qsort(v, 4, sizeof(int), cmp);
	return v[0] + (int)strlen("abc");
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += work(i);
	printf("%d\n", s);
	return 0;
}
