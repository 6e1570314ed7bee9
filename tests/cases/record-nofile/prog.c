/* record-nofile: a few calls, for records under a low RLIMIT_NOFILE */
#include <stdio.h>

__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += leaf(i);
	printf("%d\n", s);
	return 5;
}
