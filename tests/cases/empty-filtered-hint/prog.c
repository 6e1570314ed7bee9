/* A program that is instrumented: when a trace of it holds no event, the
 * record options chose that, and the messages must say so rather than ask
 * for a rebuild with -finstrument-functions. */
#include <stdio.h>

__attribute__((noinline)) static int leaf(int i)
{
	return i & 3;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += leaf(i);
	printf("%d\n", s);
	return 0;
}
