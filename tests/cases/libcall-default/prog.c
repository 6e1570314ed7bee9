/* library calls as a user meets them: `fntrace record` with no option
 * (libcall-default); their names need no debug info and survive strip
 * (libcall-names) */
#include <stdio.h>
#include <stdlib.h>

static int calls;

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	calls++;
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	int *v = malloc(4 * sizeof(int));
	for (int i = 0; i < 4; i++)
		v[i] = 4 - i;
	qsort(v, 4, sizeof(int), cmp);
	printf("%d %d %d %d cmp=%d\n", v[0], v[1], v[2], v[3], calls);
	free(v);
	return 0;
}
