/* -pg -mfentry: every event the program made is in the trace or counted
 * as lost, once, by kind.
 *   (no argument) another thread keeps signalling the main thread, whose
 *     handler makes two traced calls; a handler that lands inside a hook
 *     loses both calls, 4 events (their exits never reach a hook);
 *   deep: recursion 300 deep under a shadow stack of 100 frames: the calls
 *     below it are not traced, 2 events each. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile int handled, stop;
static pthread_t main_thread;
static int (*volatile again)(int);

__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void on_signal(int sig) { leaf(sig); handled++; }
__attribute__((noinline)) int down(int n) { return n ? again(n - 1) + 1 : 0; }

__attribute__((no_instrument_function)) static void *sender(void *arg)
{
	(void)arg;
	while (!stop)
		pthread_kill(main_thread, SIGUSR1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t th;
	long calls = 0;
	int s = 0;

	if (argc > 1 && !strcmp(argv[1], "deep")) {
		again = down;
		printf("%d\n", down(300));
		return 0;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	main_thread = pthread_self();
	if (pthread_create(&th, NULL, sender, NULL))
		return 3;
	while (handled < 1000) {
		s += leaf(s);
		calls++;
	}
	stop = 1;
	pthread_join(th, NULL);
	/* the last signals may still be pending: take them before counting */
	signal(SIGUSR1, SIG_IGN);
	printf("handled %d calls %ld\n", handled, calls);
	return 0;
}
