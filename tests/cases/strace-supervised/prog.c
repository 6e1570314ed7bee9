/* A program with many short calls: run under strace -f, where every system
 * call stops the process for tens of microseconds. */
#include <stdio.h>

__attribute__((noinline)) static unsigned work(unsigned i)
{
	return i * 2654435761u >> 7;
}

__attribute__((noinline)) static unsigned outer(unsigned i)
{
	return work(i) ^ work(i + 1);
}

int main(void)
{
	unsigned acc = 0;
	for (unsigned i = 0; i < 10000; i++)
		acc += outer(i);
	printf("acc %u\n", acc);
	return 0;
}
