/* export-output: a small trace to export into places that are not plain
 * new files (a FIFO, a symlink, an existing file with its own mode). */
#include <stdio.h>

__attribute__((noinline)) int leaf(int x)
{
	return x + 1;
}

__attribute__((noinline)) int mid(int x)
{
	return leaf(x) + leaf(x + 1);
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += mid(i);
	printf("%d\n", s);
	return 0;
}
