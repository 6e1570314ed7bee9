/* -pg -mfentry: recursion 12000 deep, every frame's return address swapped */
#include <stdio.h>

static int (*volatile again)(int, int);

__attribute__((noinline)) int down(int n, int acc)
{
	if (n == 0)
		return acc;
	return again(n - 1, acc + 1) + 0 * n;
}

int main(void)
{
	again = down;
	printf("%d\n", down(12000, 0));
	return 0;
}
