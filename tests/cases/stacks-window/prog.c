/* two call stacks captured with fnt_capture_stack(), for stacks --since/--until */
#include "fntrace.h"

__attribute__((noinline)) void leaf(int i)
{
	fnt_capture_stack();
	__asm__ volatile("" : : "r"(i));
}

int main(void)
{
	leaf(1);
	leaf(2);
	return 0;
}
