/* A hand-written stack switch, as Boost.Context or a green-thread library
 * does it: ctx_switch saves the callee-saved registers on the current
 * stack, stores the stack pointer, loads another and returns on that
 * stack.  No makecontext/swapcontext for the runtime to wrap.  Two
 * coroutines, ping and pong, hand control to each other three times from
 * inside nested calls, then pong returns to main; both stay suspended at
 * the end.  Replay must keep their frames open while they are suspended
 * (not "unwound"), in every build mode, and the program must run as it does
 * untraced (-pg builds swap return addresses on all three stacks). */
#include <stdint.h>
#include <stdio.h>

#define ROUNDS 3
#define NOINLINE __attribute__((noinline))

#include "ctx-switch.h"

#ifndef STACK_KB
#define STACK_KB 64
#endif
static char stack_a[STACK_KB << 10] __attribute__((aligned(16)));
static char stack_b[STACK_KB << 10] __attribute__((aligned(16)));
static void *main_sp, *a_sp, *b_sp;
static int total;

NOINLINE void leaf(int x) { __asm__ volatile(""); total += x; }
NOINLINE void yield_to(void **save, void *to) { ctx_switch(save, to); }

NOINLINE void ping_step(int i) { leaf(i); yield_to(&a_sp, b_sp); }
NOINLINE void pong_step(int i) { leaf(10 * i); yield_to(&b_sp, i == ROUNDS - 1 ? main_sp : a_sp); }

NOINLINE void ping(void)
{
	for (int i = 0; i < ROUNDS; i++)
		ping_step(i);
	for (;;)
		yield_to(&a_sp, main_sp);       /* never resumed */
}

NOINLINE void pong(void)
{
	for (int i = 0; i < ROUNDS; i++)
		pong_step(i);
	for (;;)
		yield_to(&b_sp, main_sp);
}

/* a stack that ctx_switch enters at fn, as if fn had been called */
NOINLINE void *new_stack(char *stack, size_t size, void (*fn)(void))
{
	void **sp = (void **)(((uintptr_t)stack + size) & ~(uintptr_t)15);
	*--sp = 0;                  /* fn's return address: it never returns */
	*--sp = (void *)fn;         /* where ctx_switch returns to */
	for (int i = 0; i < 6; i++)
		*--sp = 0;              /* rbp rbx r12-r15 */
	return sp;
}

NOINLINE void run(void)
{
	a_sp = new_stack(stack_a, sizeof(stack_a), ping);
	b_sp = new_stack(stack_b, sizeof(stack_b), pong);
	yield_to(&main_sp, a_sp);
}

int main(void)
{
	run();
	printf("%d\n", total);
	return 0;
}
