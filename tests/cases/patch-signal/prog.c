/* record --patch-signal USR1: only the calls between the two signals are traced */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) int f(int x) { sink++; return x * 2; }
__attribute__((noinline)) int g(int x) { sink++; return f(x) + 1; }

int main(void)
{
	long sum = 0;
	for (int i = 0; i < 5; i++)            /* phase 1: not traced */
		sum += g(i);
	kill(getpid(), SIGUSR1);
	for (int i = 100; i < 103; i++)        /* phase 2: traced */
		sum += g(i);
	kill(getpid(), SIGUSR1);
	for (int i = 0; i < 7; i++)            /* phase 3: not traced */
		sum += f(i);
	printf("%ld\n", sum);
	return 0;
}
