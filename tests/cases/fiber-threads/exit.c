/* A thread leaves a fiber by a hand-written switch and exits without a
 * traced call since (its code is not traced); main resumes the fiber
 * afterwards and runs it to its end.  Under -pg and patchable entries the
 * fiber's frames were on the exited thread's shadow stack. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define UNTRACED __attribute__((noinline, no_instrument_function, patchable_function_entry(0, 0)))
#define ROUNDS 3
#define STACK (256 << 10)

#include "../stack-switch/ctx-switch.h"

static void *fiber_sp, *back_sp;
static char *stack;
static long acc;
static int done, ran[ROUNDS + 1], n_ran;
static volatile int who;        /* 0: the thread, 1: main */

NOINLINE long leaf(long x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

NOINLINE void yield(void)
{
	ctx_switch(&fiber_sp, back_sp);
}

NOINLINE long step(int i)
{
	long v = leaf(i);
	ran[n_ran++] = who;
	yield();
	return v + leaf(i);
}

NOINLINE void fiber_main(void)
{
	for (int i = 0; i < ROUNDS; i++)
		acc += step(i);
	ran[n_ran++] = who;
}

UNTRACED void fiber_entry(void)
{
	fiber_main();
	done = 1;
	ctx_switch(&fiber_sp, back_sp);
	abort();
}

/* the thread runs the fiber to its first yield, then exits */
UNTRACED void *thread_fn(void *arg)
{
	(void)arg;
	ctx_switch(&back_sp, fiber_sp);
	return NULL;
}

UNTRACED void resume_until_done(void)
{
	while (!done)
		ctx_switch(&back_sp, fiber_sp);
}

int main(void)
{
	pthread_t th;
	stack = malloc(STACK);
	void **sp = (void **)(((uintptr_t)stack + STACK) & ~(uintptr_t)15);
	*--sp = 0;
	*--sp = (void *)fiber_entry;
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	fiber_sp = sp;
	pthread_create(&th, NULL, thread_fn, NULL);
	pthread_join(th, NULL);
	who = 1;
	resume_until_done();
	printf("ran on");
	for (int i = 0; i < n_ran; i++)
		printf(" %d", ran[i]);
	printf(": %ld\n", acc);
	free(stack);
	return 0;
}
