/* The same functions built with every form of patchable entry that gcc and
 * clang make (case.json): with PHASES set, it sends itself SIGUSR1 twice,
 * for record --patch-signal USR1 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) int f(int x) { sink++; return x * 2; }
__attribute__((noinline)) int g(int x) { sink++; return f(x) + 1; }
__attribute__((noinline)) int rec(int n)
{
	int r = n ? rec(n - 1) + 1 : 0;
	sink = r;      /* after the call: no loop made of it */
	return r;
}

int main(void)
{
	int phases = getenv("PHASES") != NULL;
	long sum = 0;
	for (int i = 0; i < 5; i++)            /* phase 1 */
		sum += g(i);
	if (phases)
		kill(getpid(), SIGUSR1);
	for (int i = 100; i < 103; i++)        /* phase 2: the only one traced under --patch-signal */
		sum += g(i);
	sum += rec(4);
	if (phases)
		kill(getpid(), SIGUSR1);
	for (int i = 0; i < 7; i++)            /* phase 3 */
		sum += f(i);
	printf("%ld\n", sum);
	return 0;
}
