/* built WITHOUT -finstrument-functions: traced only through the API */
#include "fntrace.h"

__attribute__((noinline)) void lib_inner(int n)
{
	FNT_SCOPE();
	if (n == 2)
		fnt_capture_stack();
	__asm__ volatile("");
}

__attribute__((noinline)) void lib_outer(int n)
{
	FNT_SCOPE_NAMED("lib work");
	lib_inner(n);
	__asm__ volatile("");
}

__attribute__((noinline)) void lib_block(void)
{
	{
		FNT_SCOPE_NAMED("block");
		__asm__ volatile("");
	}
	__asm__ volatile("");
}
