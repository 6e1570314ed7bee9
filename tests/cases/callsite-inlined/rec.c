/* a recursion that gcc -O3 inlines into itself: the copies inlined have
 * the call site of the call they were inlined into; only real calls show one */
#include <stdio.h>
#include <stdlib.h>
int down(int n)
{
	if (n <= 0)
		return 0;
	return down(n - 1) + n;
}
int main(int c, char **v)
{
	(void)c;
	printf("%d\n", down(atoi(v[1])));
	return 0;
}
