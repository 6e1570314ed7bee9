/* -fpatchable-function-entry=5: the runtime patches the NOP pads */
#include <stdio.h>

static volatile int sink;
static int (*volatile again)(int, int);   /* keeps the recursion real at -O2 */

__attribute__((noinline)) int gcd(int a, int b) { sink++; return b ? again(b, a % b) : a; }
__attribute__((noinline)) const char *hello(const char *who) { sink++; return who; }
__attribute__((noinline)) double half(double x) { sink++; return x / 2; }
__attribute__((noinline)) int untouched(int x) { sink++; return x + 1; }

int main(void)
{
	again = gcd;
	printf("%d\n", gcd(12, 18));
	printf("%s\n", hello("patch"));
	printf("%g\n", half(-3.0));
	printf("%d\n", untouched(41));
	return 0;
}
