/* gdb's backtrace through swapped return addresses: stopped in probe,
 * every traced caller above it (leaf, mid, top, main) returns through
 * fntrace's trampoline.  gdb must name the real callers. */
#include <stdio.h>

__attribute__((noinline)) int probe(int x) { __asm__ volatile(""); return x; }
__attribute__((noinline)) int leaf(int x) { return probe(x * 2) + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x + 1) + 1; }
__attribute__((noinline)) int top(int x) { return mid(x + 1) + 1; }

int main(void)
{
	printf("%d\n", top(1));
	return 0;
}
