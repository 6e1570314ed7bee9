/* install-path: recorded by an fntrace installed under a path with a space
 * and a colon, which LD_PRELOAD would split.  Exactly 4 calls to twice(). */
#include <stdio.h>

__attribute__((noinline)) int twice(int x)
{
	return 2 * x;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 4; i++)
		s += twice(i);
	printf("%d\n", s);
	return 0;
}
