/* ucontext coroutines: a generator yields 400 values to main, each after
 * some work, so that the trace spans several 16 KiB chunks */
#include <stdio.h>
#include <ucontext.h>

static ucontext_t main_ctx, gen_ctx;
static char gen_stack[65536];
static int value;

__attribute__((noinline)) int burn(int n)
{
	int x = 0;
	for (int i = 0; i < n; i++)
		__asm__ volatile("" : "+r"(x));
	return x;
}

__attribute__((noinline)) int tick(int i) { return burn(1) + i; }

__attribute__((noinline)) void yield(int v)
{
	value = v;
	swapcontext(&gen_ctx, &main_ctx);
}

__attribute__((noinline)) void produce(int i)
{
	for (int k = 0; k < 20; k++)
		tick(k);
	yield(i);
}

__attribute__((noinline)) void generator(void)
{
	for (int i = 0; i < 400; i++)
		produce(i);
}

__attribute__((noinline)) int next(void)
{
	swapcontext(&main_ctx, &gen_ctx);
	return value;
}

__attribute__((noinline)) void consume(int v)
{
	tick(v);
}

int main(void)
{
	long sum = 0;
	getcontext(&gen_ctx);
	gen_ctx.uc_stack.ss_sp = gen_stack;
	gen_ctx.uc_stack.ss_size = sizeof(gen_stack);
	gen_ctx.uc_link = &main_ctx;
	makecontext(&gen_ctx, generator, 0);
	for (int i = 0; i < 400; i++) {
		int v = next();
		consume(v);
		sum += v;
	}
	printf("sum %ld\n", sum);
	return 0;
}
