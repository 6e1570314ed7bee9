/* the in-program API: marks, scopes and stacks from an uninstrumented
 * library, fnt_disable/fnt_enable, a snapshot through the API */
#include <stdio.h>
#include "fntrace.h"

void lib_outer(int n);
void lib_block(void);

__attribute__((noinline)) void step(int i) { lib_outer(i); }
__attribute__((noinline)) void hidden(void) { __asm__ volatile(""); }
__attribute__((noinline)) void after(void) { lib_block(); }

int main(void)
{
	fnt_mark("start");
	for (int i = 0; i < 3; i++)
		step(i);
	fnt_disable();
	hidden();
	hidden();
	fnt_enable();
	after();
	fnt_mark("end \"quoted\" <&>");
	if (fnt_snapshot("slow request") != 0)
		return 3;
	after();
	return 0;
}
