/* longjmp out of a qsort callback: the frames it leaves (the comparator,
 * qsort, sort) are closed as unwound, and the calls after it nest right */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static int calls;

__attribute__((noinline)) static int cmp_jump(const void *a, const void *b)
{
	if (++calls == 2)
		longjmp(env, 1);
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static void sort(int *v)
{
	qsort(v, 4, sizeof(int), cmp_jump);
}

__attribute__((noinline)) static void after(int *v)
{
	void *volatile p = malloc(16);
	free(p);
	printf("after: %d\n", v[0] + calls);
}

int main(void)
{
	int v[4] = { 4, 2, 3, 1 };
	if (!setjmp(env))
		sort(v);
	after(v);
	calls = 10;
	sort(v);
	printf("sorted: %d %d %d %d\n", v[0], v[1], v[2], v[3]);
	return 0;
}
