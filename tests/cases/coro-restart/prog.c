/* makecontext on the stack of a coroutine that was suspended and never
 * resumed (abandoned), to start a new one there: the new coroutine's calls
 * start from nothing, and the abandoned calls end where the stack was
 * restarted.
 *   once: one abandoned coroutine, one new one run to its end
 *   loop: 50 rounds of that, each abandoning at another depth */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
static ucontext_t mainc, co;
static char stack[65536];
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void yield_(void) { swapcontext(&co, &mainc); }
__attribute__((noinline)) void deep(int n) { if (n) deep(n - 1); else yield_(); leaf(n); }
__attribute__((noinline)) void old_inner(void) { leaf(1); yield_(); leaf(2); }
__attribute__((noinline)) void old_co(void) { old_inner(); }
static int round_;
__attribute__((noinline)) void old_deep(void) { deep(round_ % 5); }
__attribute__((noinline)) void new_inner(void) { leaf(3); }
__attribute__((noinline)) void new_co(void) { new_inner(); }
__attribute__((noinline)) void start(void (*fn)(void))
{
	getcontext(&co);
	co.uc_stack.ss_sp = stack;
	co.uc_stack.ss_size = sizeof stack;
	co.uc_link = &mainc;
	makecontext(&co, fn, 0);
	swapcontext(&mainc, &co);
}
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "loop")) {
		for (round_ = 0; round_ < 50; round_++) {
			start(old_deep);    /* suspended in yield_, never resumed */
			start(new_co);      /* the same stack, run to its end */
		}
	} else {
		start(old_co);
		start(new_co);
	}
	leaf(4);
	printf("done\n");
	return 0;
}
