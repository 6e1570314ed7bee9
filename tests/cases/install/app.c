/* A program that uses the in-program API, built after `make install`
 * through pkg-config alone: fntrace.h from include/, -lfntrace from lib/. */
#include <stdio.h>
#include <fntrace.h>

__attribute__((noinline)) static int step(int i)
{
	FNT_SCOPE_NAMED("inner-scope");
	return i * 2;
}

int main(void)
{
	int sum = 0;
	for (int i = 0; i < 3; i++)
		sum += step(i);
	fnt_mark("done");
	printf("sum %d\n", sum);
	return sum == 6 ? 0 : 1;
}
