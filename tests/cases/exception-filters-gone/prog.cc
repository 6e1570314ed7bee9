// Record-time filters and the calls a landing pad closed (filter.c,
// fnt_filter_stray_exit): the return of a catching function inlined into
// its caller, which the pad closed, is skipped in the landing frame, and
// only there.
//   nested: the catch body of the inlined catcher, in a recursion, catches
//           an exception of its own (a landing at another depth; under gcc
//           every exit hook's cleanup is one too);
//   many:   the landing frame catches 7 times itself before the inlined
//           catcher's catch (more calls closed than the runtime keeps);
//   coro:   a landing on a coroutine's stack, then a return on the main
//           stack at the same depth, of a function the pad closed there.
#include <cstdio>
#include <cstring>
#include <ucontext.h>

__attribute__((noinline)) int thrower(int n) { if (n >= 0) throw n; return n; }
__attribute__((noinline)) int thrower2(int n) { if (n >= 0) throw n; return n; }
__attribute__((noinline)) int handled(int e) { try { return thrower2(e); } catch (int x) { return x + 1; } }
__attribute__((noinline)) int leaf(int n) { __asm__ volatile("" ::"r"(n)); return n * 2; }

static int many;
int f(int n);
static inline __attribute__((always_inline)) int catcher(int n)
{
	try {
		return n > 0 ? f(n - 1) + 1 : thrower(n);
	} catch (int e) {
		return handled(e);
	}
}
__attribute__((noinline)) int f(int n)
{
	int s = 0;
	for (int i = 0; i < many; i++)
		try { s += thrower(i); } catch (int e) { s += e; }
	return s + catcher(n) + leaf(n);
}

static ucontext_t main_ctx, co_ctx;
static char co_stack[1 << 16];
__attribute__((noinline)) void step(int k)
{
	if (k == 1)
		throw k;
	if (k == 2)
		swapcontext(&main_ctx, &co_ctx);
	if (k == 3)
		swapcontext(&co_ctx, &main_ctx);
}
__attribute__((noinline)) void work()
{
	try { step(1); } catch (int) { leaf(1); }   // a landing in work (depth 4)
	step(3);
}
__attribute__((noinline)) void yieldf() { step(3); }
__attribute__((noinline)) void co() { work(); leaf(2); yieldf(); }
__attribute__((noinline)) void run() { swapcontext(&main_ctx, &co_ctx); leaf(3); }
__attribute__((noinline)) void mid() { step(2); leaf(4); }
__attribute__((noinline)) void run2() { mid(); leaf(5); }

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "nested";
	if (!strcmp(mode, "coro")) {
		getcontext(&co_ctx);
		co_ctx.uc_stack.ss_sp = co_stack;
		co_ctx.uc_stack.ss_size = sizeof(co_stack);
		co_ctx.uc_link = &main_ctx;
		makecontext(&co_ctx, (void (*)())co, 0);
		run();          // the coroutine starts above it: co 3, work 4
		run2();         // run2 2, mid 3, step 4 switches; back here, step returns at depth 4
		leaf(6);
		std::puts("coro");
		return 0;
	}
	many = !strcmp(mode, "many") ? 7 : 0;
	int s = f(2);
	s += leaf(1);
	std::printf("%d\n", s);
	return 0;
}
