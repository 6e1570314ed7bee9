/* 6000 calls of leaf (and main): 12002 events, enough for "12.0 K events" */
#include <stdio.h>

__attribute__((noinline)) static int leaf(int i)
{
	return i & 3;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 6000; i++)
		s += leaf(i);
	printf("%d\n", s);
	return 0;
}
