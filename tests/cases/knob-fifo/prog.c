/* FNTRACE_ARGS_FILE names a FIFO nobody writes to (or a device): the
 * runtime reads it at start-up, before main, and must neither block nor
 * read forever. */
#include <stdio.h>

__attribute__((noinline)) int add(int a, int b) { __asm__ volatile(""); return a + b; }

int main(void)
{
	printf("%d\n", add(2, 3));
	return 0;
}
