/* The process's first traced call is made by a new thread inside a signal
 * handler running on an 8 KiB sigaltstack with a guard page below it: the
 * runtime's first-call path must fit in what is left after the kernel's
 * signal frame.  main and the thread function are not traced, so nothing
 * has warmed the runtime up before. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define ALT 8192

static unsigned char *alt;
static volatile int got;

__attribute__((noinline)) int work(int x) { return x * 2 + 1; }
__attribute__((noinline)) void handler(int sig) { got = work(sig); }

__attribute__((no_instrument_function)) static void *thread_main(void *arg)
{
	unsigned char *m = mmap(NULL, ALT + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	(void)arg;
	if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE))
		return NULL;
	alt = m + 4096;
	memset(alt, 0xa5, ALT);
	stack_t ss = { .ss_sp = alt, .ss_size = ALT };
	if (sigaltstack(&ss, NULL))
		return NULL;
	raise(SIGUSR1);
	size_t i = 0;
	while (i < ALT && alt[i] == 0xa5)
		i++;
	/* the figure for doc/safety.md; it varies with the CPU's signal frame */
	fprintf(stderr, "sigaltstack used: %zu of %d bytes\n", (size_t)ALT - i, ALT);
	return NULL;
}

__attribute__((no_instrument_function)) int main(void)
{
	struct sigaction sa;
	pthread_t th;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&th, NULL, thread_main, NULL);
	pthread_join(th, NULL);
	printf("handler result %d\n", got);
	return got == 2 * SIGUSR1 + 1 ? 0 : 1;
}
