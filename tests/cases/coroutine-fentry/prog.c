/* A generator on a ucontext coroutine: each next() switches to the
 * generator's own stack, which yields a value and switches back, leaving
 * its frames suspended there until the next next().  The traced frames of
 * the two stacks interleave on the thread's shadow stack; each must return
 * to its real caller. */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

static ucontext_t main_ctx, gen_ctx;
static int value, done;

__attribute__((noinline)) void yield(int v)
{
	value = v;
	swapcontext(&gen_ctx, &main_ctx);
}

__attribute__((noinline)) void produce(int i) { yield(i * i); }

__attribute__((noinline)) void generator(void)
{
	for (int i = 1; i <= 3; i++)
		produce(i);
	done = 1;
}

__attribute__((noinline)) int next(void)
{
	swapcontext(&main_ctx, &gen_ctx);
	return done ? -1 : value;
}

__attribute__((noinline)) void consume(int v) { printf("got %d\n", v); }

int main(void)
{
	static char stack[64 * 1024];
	getcontext(&gen_ctx);
	gen_ctx.uc_stack.ss_sp = stack;
	gen_ctx.uc_stack.ss_size = sizeof(stack);
	gen_ctx.uc_link = &main_ctx;
	makecontext(&gen_ctx, generator, 0);
	for (int v; (v = next()) >= 0;)
		consume(v);
	printf("done\n");
	return 0;
}
