/* -pg -mfentry under record-time filters: leaf is short, slow is long */
#include <stdio.h>

__attribute__((noinline)) int leaf(int x)
{
	return x + 1;
}

__attribute__((noinline)) int slow(int x)
{
	volatile long s = 0;
	for (long i = 0; i < 20000000; i++)
		s += i;
	return x * 2;
}

__attribute__((noinline)) int mid(int x)
{
	return leaf(x) + slow(x);
}

__attribute__((noinline)) int hidden(int x)
{
	return leaf(x) * 3;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += mid(i) + hidden(i);
	printf("sum %d\n", s);
	return 0;
}
