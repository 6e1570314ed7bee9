/* FNT_WEAK: no -lfntrace, no instrumentation.  Run alone, every API call
 * is a null check; under `fntrace record` the preloaded runtime provides
 * the symbols and the scopes, marks and stacks are recorded. */
#define FNT_WEAK
#include <stdio.h>
#include "fntrace.h"

__attribute__((noinline)) void work(int i)
{
	FNT_SCOPE();
	if (i == 1)
		fnt_capture_stack();
	__asm__ volatile("");
}

__attribute__((noinline)) void batch(void)
{
	FNT_SCOPE_NAMED("batch");
	for (int i = 0; i < 3; i++)
		work(i);
}

int main(void)
{
	fnt_mark("weak start");
	batch();
	printf("snapshot %d\n", fnt_snapshot("weak"));
	return 0;
}
