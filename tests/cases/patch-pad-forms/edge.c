/* Functions laid out to mislead a pad's attribution (case.json builds it
 * with -fno-reorder-functions, so they stay in this order):
 *  - die: empty, noreturn; main's cold part (the call to it) follows its
 *    pad at once;
 *  - stop_here: empty and without a pad, right before f, whose pad (with
 *    M > 0) starts at stop_here's address;
 *  - never: empty, its pad followed at once by bump, which has none and
 *    whose loop alignment NOPs are not a pad;
 *  - spin: its code starts with NOPs that its loop jumps back to.
 * With PHASES set it sends itself SIGUSR1 around the middle calls. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noreturn, noinline)) void die(void) { __builtin_unreachable(); }
__attribute__((noreturn, noinline, patchable_function_entry(0, 0))) void stop_here(void) { __builtin_unreachable(); }
static volatile int sink;

__attribute__((noinline)) int f(int x) { sink++; return x * 3 + 1; }     /* (sink: calls stay where they are) */
__attribute__((noreturn, noinline)) void never(void) { __builtin_unreachable(); }
__attribute__((noinline, patchable_function_entry(0, 0))) void bump(volatile int *p, int n)
{
	do {
		p[0] += n;
		p[1] ^= n;
	} while (--n > 0);
}
__attribute__((noinline)) void spin(volatile int *p)
{
	do
		__asm__ volatile("nop; nop");
	while (--*p > 0);
}

/* f's first instruction, after its endbr64: a NOP of its pad, or the call
 * written there; anything else is a pad rewritten across its entry */
static int entry_whole(const unsigned char *p)
{
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	return p[0] == 0x90 || p[0] == 0x0f || p[0] == 0x66 || p[0] == 0x2e || p[0] == 0xe8;
}

int main(int argc, char **argv)
{
	int phases = getenv("PHASES") != NULL;
	volatile int v[2] = { 0, 0 }, n = 3;
	void (*volatile fns[])(void) = { stop_here, never };
	long sum;
	(void)argv;
	if (!entry_whole((const unsigned char *)(void *)f))
		printf("f's entry was damaged\n");
	sum = f(1);
	if (argc > 5)
		die();          /* gcc -O2: in main.cold, after the cold (noreturn) functions */
	if (argc > 6)
		fns[argc % 2]();
	if (phases)
		kill(getpid(), SIGUSR1);
	sum += f(2);
	bump(v, 10);
	spin(&n);
	if (phases)
		kill(getpid(), SIGUSR1);
	sum += f(3);
	printf("%ld %d %d %d\n", sum, v[0], v[1], n);
	return 0;
}
