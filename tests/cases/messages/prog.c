#include <stdio.h>

__attribute__((noinline)) static int parse(int i)
{
	return i + 1;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += parse(i);
	printf("%d\n", s);
	return 0;
}
