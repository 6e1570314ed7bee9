/* 200,000 calls in 16 KiB chunks: a trace of some 50 chunks */
#include <stdio.h>

__attribute__((noinline)) static int step(int i)
{
	return i & 7;
}

int main(void)
{
	long s = 0;
	for (int i = 0; i < 200000; i++)
		s += step(i);
	printf("%ld\n", s);
	return 0;
}
