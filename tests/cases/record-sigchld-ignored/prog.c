/* record started with SIGCHLD ignored (inherited across exec): the program
 * gets it ignored too, and record still waits for it, keeps its exit status
 * and drains every event (400,000 events: two chunks and more) */
#include <signal.h>
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
int main(void)
{
	struct sigaction sa;
	long s = 0;
	sigaction(SIGCHLD, NULL, &sa);
	for (int i = 0; i < 200000; i++)
		s += leaf(i);
	printf("SIGCHLD %s\n", sa.sa_handler == SIG_IGN ? "ignored" : "default");
	return s > 0 ? 3 : 4;
}
