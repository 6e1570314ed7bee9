/* setcontext back to a context getcontext saved on the same stack, right
 * after a pause (untraced work of some 100,000 cycles): the call that
 * follows the pause is the thread's last event before the setcontext.  The
 * runtime knows getcontext's context for one on the stack in use by the
 * stack pointers it has seen there, and the frames the jump leaves must be
 * closed as unwound, as without the pause.  (After a pause long enough for
 * a clone, the runtime narrows its window of stack pointers, which it once
 * emptied, so that a child's next event checks the thread id: the test for
 * the stack in use must not depend on the window.) */
#include <stdint.h>
#include <stdio.h>
#include <ucontext.h>

#define UNTRACED __attribute__((noinline, no_instrument_function, patchable_function_entry(0, 0)))

static ucontext_t ctx;
static volatile int n;

UNTRACED void pause_a_while(void)
{
	for (uint64_t t0 = __builtin_ia32_rdtsc(); __builtin_ia32_rdtsc() - t0 < 100000;)
		__asm__ volatile("pause");
}

__attribute__((noinline)) void go_back(void)
{
	setcontext(&ctx);
}

__attribute__((noinline)) void looped(void)
{
	getcontext(&ctx);
	if (n++ < 2) {
		pause_a_while();
		go_back();
	}
}

int main(void)
{
	looped();
	printf("%d\n", n);
	return 0;
}
