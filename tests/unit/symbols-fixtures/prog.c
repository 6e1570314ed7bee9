/* test-symbols fixture: C functions whose lines the test knows from the
 * "@name" markers on the lines where their names are written. */
#include <stdlib.h>

__attribute__((noinline)) int leaf(int x) /* @leaf */
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) int one_line(int x) { __asm__ volatile(""); return x * 3 + 1; } /* @one_line */

static __attribute__((noinline)) int
caller(int x) /* @caller */
{
	int a = leaf(x);
	return one_line(a) + leaf(a);
}

int main(int argc, char **argv) /* @main */
{
	(void)argv;
	return caller(argc) == 7 ? EXIT_SUCCESS : EXIT_FAILURE;
}
