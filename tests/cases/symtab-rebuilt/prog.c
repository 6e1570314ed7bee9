/* names and lines after the binary was rebuilt or deleted (record saves them) */
#define FNT_WEAK
#include <stdlib.h>
#include "fntrace.h"

#ifdef REBUILT
__attribute__((noinline)) int pad(int x) { return x * 3; }     /* moves everything below */
#endif
__attribute__((noinline)) static int leaf(int x)
{
	fnt_capture_stack();
	return x + 1;
}

__attribute__((noinline)) int by_value(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) int middle(int x)
{
	int v[3] = { 3, 1, 2 };
	qsort(v, 3, sizeof(v[0]), by_value);
	return leaf(x) + v[0];
}

int main(void)
{
	return middle(1) == 3 ? 0 : 1;
}
