/* 6000 calls of leaf (and main): 12002 events, enough for "12.0 K events";
 * with an argument N, N calls */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int leaf(int i)
{
	return i & 3;
}

int main(int argc, char **argv)
{
	int s = 0, n = argc > 1 ? atoi(argv[1]) : 6000;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	printf("%d\n", s);
	return 0;
}
