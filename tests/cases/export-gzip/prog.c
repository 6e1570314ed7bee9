/* 250,000 calls: 500,002 events, a trace of a few chunks */
#include <stdio.h>

__attribute__((noinline)) static int step(int i)
{
	return i & 7;
}

int main(void)
{
	long s = 0;
	for (int i = 0; i < 250000; i++)
		s += step(i);
	printf("%ld\n", s);
	return 0;
}
