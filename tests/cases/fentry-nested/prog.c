/* gcc nested functions under -pg -mfentry: gcc saves the static chain
 * (%r10) with a push before the __fentry__ call, so the return address is
 * one slot further up; the nested function reads its parent's variable
 * through that chain and prints the sum, which must be right. */
#include <stdio.h>

__attribute__((noinline)) int apply(int (*f)(int), int v) { return f(v); }

__attribute__((noinline)) int outer(int base)
{
	__attribute__((noinline)) int add(int x) { return x + base; }
	return apply(add, 1) + apply(add, 2);
}

int main(void)
{
	printf("sum %d\n", outer(40));
	return 0;
}
