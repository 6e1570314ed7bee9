/* Two of these run at once, each as pid 1 of a pid namespace of its own
 * (check.py starts them with unshare --pid --fork): "a N" calls work_a N
 * times, "b N" work_b, each call two leaves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) void work_a(unsigned long i)
{
	leaf(i);
	leaf(i + 1);
}

__attribute__((noinline)) void work_b(unsigned long i)
{
	leaf(i);
	leaf(i * 2);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
	int b = argc > 1 && !strcmp(argv[1], "b");
	for (unsigned long i = 0; i < n; i++) {
		if (b)
			work_b(i);
		else
			work_a(i);
	}
	printf("done %s\n", b ? "b" : "a");
	return 0;
}
