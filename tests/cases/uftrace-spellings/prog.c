/* A small program for the usage errors uftrace's spellings get. */
#include <stdio.h>

__attribute__((noinline)) int leaf(int x)
{
	return x * 2;
}

int main(void)
{
	printf("%d\n", leaf(21));
	return 0;
}
