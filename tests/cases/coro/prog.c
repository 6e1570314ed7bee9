/* ucontext coroutines: a generator yields three values to main through
 * swapcontext, then returns (its uc_link brings main back); a second
 * coroutine yields once and stays suspended at exit. */
#include <stdio.h>
#include <ucontext.h>

static ucontext_t main_ctx, gen_ctx, idle_ctx;
static char gen_stack[65536], idle_stack[65536];
static int value, done;

__attribute__((noinline)) void yield(int v)
{
	value = v;
	swapcontext(&gen_ctx, &main_ctx);
}

__attribute__((noinline)) int square(int x)
{
	return x * x;
}

__attribute__((noinline)) void produce(int i)
{
	yield(square(i));
}

__attribute__((noinline)) void generator(void)
{
	for (int i = 1; i <= 3; i++)
		produce(i);
	done = 1;
}

__attribute__((noinline)) void idle(void)
{
	swapcontext(&idle_ctx, &main_ctx);
}

__attribute__((noinline)) int next(void)
{
	swapcontext(&main_ctx, &gen_ctx);
	return value;
}

__attribute__((noinline)) void consume(int v)
{
	printf("got %d\n", v);
}

int main(void)
{
	getcontext(&gen_ctx);
	gen_ctx.uc_stack.ss_sp = gen_stack;
	gen_ctx.uc_stack.ss_size = sizeof(gen_stack);
	gen_ctx.uc_link = &main_ctx;
	makecontext(&gen_ctx, generator, 0);
	getcontext(&idle_ctx);
	idle_ctx.uc_stack.ss_sp = idle_stack;
	idle_ctx.uc_stack.ss_size = sizeof(idle_stack);
	idle_ctx.uc_link = &main_ctx;
	makecontext(&idle_ctx, idle, 0);
	while (1) {
		int v = next();
		if (done)
			break;
		consume(v);
	}
	swapcontext(&main_ctx, &idle_ctx);
	printf("done\n");
	return 0;
}
