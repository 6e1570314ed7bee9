/* A time= trigger on a coroutine's function that yields: between its entry
 * and its return the thread ran the caller's stack, whose events (and
 * SWITCH records) follow the entry in the chunk.  Erasing the call as too
 * short would take them with it; it is kept (before, resume(2) vanished
 * and its return value went to resume(1)). */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

static volatile long sink;
static ucontext_t uc_main, uc_co;

__attribute__((noinline)) long leaf(long x) { sink += x; return x * 2; }
__attribute__((noinline)) long yield_(long x) { swapcontext(&uc_co, &uc_main); return x + 1; }
__attribute__((noinline)) long co_work(long x)
{
	long a = leaf(x), b = yield_(x + 10), c = leaf(x + 20);
	return a + b + c;
}
static void co_entry(void) { printf("co_work=%ld\n", co_work(5)); }
__attribute__((noinline)) long resume(long x) { swapcontext(&uc_main, &uc_co); return leaf(x) + 100; }

int main(void)
{
	getcontext(&uc_co);
	uc_co.uc_stack.ss_sp = malloc(1 << 16);
	uc_co.uc_stack.ss_size = 1 << 16;
	uc_co.uc_link = &uc_main;
	makecontext(&uc_co, co_entry, 0);
	long r1 = resume(1), r2 = resume(2);
	printf("%ld %ld\n", r1, r2);
	return 0;
}
