/* Coroutines for a flight recorder's history to start among:
 *   multi:  three generators on stacks of their own, which main resumes
 *           in turn; each yields from the same function, gyield(), at a
 *           depth of its own (gdeep's recursion)
 *   nested: main resumes A, which resumes B (a coroutine that resumes
 *           another), and each yields back to the one that resumed it */
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#define ROUNDS 3000
static ucontext_t mainc, gc[3], ac, bc;
static char gs[3][65536], sa[65536], sb[65536];
static int cur, val;

__attribute__((noinline)) int burn(int n)
{
	int x = 0;
	for (int i = 0; i < n; i++)
		__asm__ volatile("" : "+r"(x));
	return x;
}
__attribute__((noinline)) int leaf(int i) { return burn(1) + i; }

__attribute__((noinline)) void gyield(int v) { val = v; swapcontext(&gc[cur], &mainc); }
__attribute__((noinline)) void gdeep(int d, int i)
{
	if (d > 0)
		gdeep(d - 1, i);
	else
		gyield(i);
}
__attribute__((noinline)) void gwork(int i) { leaf(i); gdeep(cur, i); }
__attribute__((noinline)) void gen(void)
{
	for (int i = 0;; i++)
		gwork(i);
}
__attribute__((noinline)) int gnext(int k)
{
	cur = k;
	swapcontext(&mainc, &gc[k]);
	return val;
}

__attribute__((noinline)) void byield(int v) { val = v; swapcontext(&bc, &ac); }
__attribute__((noinline)) void bwork(int i) { leaf(i); byield(i); }
__attribute__((noinline)) void bgen(void)
{
	for (int i = 0;; i++)
		bwork(i);
}
__attribute__((noinline)) int bnext(void) { swapcontext(&ac, &bc); return val; }
__attribute__((noinline)) void ayield(void) { swapcontext(&ac, &mainc); }
__attribute__((noinline)) void afilter(void) { leaf(bnext()); ayield(); }
__attribute__((noinline)) void agen(void)
{
	for (;;)
		afilter();
}
__attribute__((noinline)) void anext(void) { swapcontext(&mainc, &ac); }

__attribute__((noinline)) void consume(int v) { leaf(v); }

/* (a macro: -fpatchable-function-entry instruments every function) */
#define mk(c, s, fn) do {                        \
		getcontext(c);                   \
		(c)->uc_stack.ss_sp = (s);       \
		(c)->uc_stack.ss_size = sizeof(s); \
		(c)->uc_link = &mainc;           \
		makecontext((c), (fn), 0);       \
	} while (0)

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "nested")) {
		mk(&ac, sa, agen);
		mk(&bc, sb, bgen);
		bc.uc_link = &ac;
		for (int i = 0; i < ROUNDS; i++) {
			anext();
			consume(i);
		}
	} else {
		for (int k = 0; k < 3; k++)
			mk(&gc[k], gs[k], gen);
		for (int i = 0; i < ROUNDS; i++)
			consume(gnext(i % 3));
	}
	printf("done\n");
	return 0;
}
