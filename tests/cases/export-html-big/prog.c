/* the html export of a big trace: 600,001 calls (1.2M events), most of them
 * tiny, so the page must leave most out of the timeline and aggregate them */
#include <stdlib.h>
__attribute__((noinline)) int tiny(int x) { __asm__ volatile(""); return x ^ 1; }
__attribute__((noinline)) int small(int x) { return tiny(x) + tiny(x + 1); }
__attribute__((noinline)) int step(int x) { return small(x) + small(x >> 1) + (x & 1); }
__attribute__((noinline)) int batch(int b)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += step(b * 1000 + i);
	return s;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 85, s = 0;
	for (int b = 0; b < n; b++)
		s += batch(b);
	return s == 0 ? 2 : 0;
}
