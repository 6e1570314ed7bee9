/* getcontext returns a second and a third time when setcontext, called
 * from a function below, goes back to it; then again through swapcontext;
 * then a coroutine through makecontext/swapcontext */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

static ucontext_t back, main_ctx, co_ctx, left;
static volatile int turns;
static char co_stack[64 * 1024];

__attribute__((noinline)) static void go_back(void)
{
	setcontext(&back);
}

__attribute__((noinline)) static int looped(void)
{
	turns = 0;
	getcontext(&back);
	if (turns++ < 2)
		go_back();
	return turns;
}

__attribute__((noinline)) static void swap_back(void)
{
	swapcontext(&left, &back);
}

__attribute__((noinline)) static int looped_swap(void)
{
	turns = 0;
	getcontext(&back);
	if (turns++ < 1)
		swap_back();
	return turns;
}

__attribute__((noinline)) static void co_body(void)
{
	swapcontext(&co_ctx, &main_ctx);
}

__attribute__((noinline)) static int after(int x)
{
	return x + 1;
}

int main(void)
{
	int n = looped();
	n += looped_swap();
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof(co_stack);
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_body, 0);
	swapcontext(&main_ctx, &co_ctx);        /* into co_body, which swaps back */
	swapcontext(&main_ctx, &co_ctx);        /* co_body returns: to uc_link */
	printf("%d %d\n", n, after(n));
	return 0;
}
