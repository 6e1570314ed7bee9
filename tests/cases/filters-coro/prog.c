/* Record-time filters across coroutine switches (swapcontext): each
 * machine stack keeps its own depth and its own -F/-N/-H/-C/-D state, so
 * that a record-time filter keeps what the same filter at read time shows.
 * driver() resumes a coroutine three times; each time it runs mid() once
 * and yields back from inside co_body(); driver() then calls mid() itself.
 * A last resume() lets the coroutine return to its uc_link. */
#include <stdio.h>
#include <ucontext.h>

#define NI __attribute__((noinline))
static ucontext_t mainc, coc;
static char stk[65536];
static volatile int sink;

NI int leaf(int x) { return x + 1; }
NI int mid(int x) { return leaf(x) * 2; }
NI void co_yield(void) { swapcontext(&coc, &mainc); }
NI void co_body(void)
{
	for (int i = 0; i < 3; i++) {
		sink += mid(i);
		co_yield();
	}
}
NI void co_entry(void) { co_body(); }
NI void resume(void) { swapcontext(&mainc, &coc); }
NI void driver(void)
{
	for (int i = 0; i < 3; i++) {
		resume();
		sink += mid(10 + i);
	}
}

int main(void)
{
	getcontext(&coc);
	coc.uc_stack.ss_sp = stk;
	coc.uc_stack.ss_size = sizeof(stk);
	coc.uc_link = &mainc;
	makecontext(&coc, co_entry, 0);
	driver();
	resume();
	printf("sink %d\n", sink);
	return 0;
}
