/* pthread_cancel of a thread waiting at a cancellation point (a traced
 * library call: usleep) under traced frames whose return addresses are
 * swapped: the cancellation's forced unwind must run the destructors of
 * every frame, innermost first, and pthread_join get PTHREAD_CANCELED.
 * The destructors note their order; main prints it after the join.
 * With the argument "pthread" or "thrd" the thread leaves by itself
 * instead, with pthread_exit or C11's thrd_exit (which glibc runs past the
 * runtime's pthread_exit wrapper), from the same frames. */
#include <cxxabi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>
#include <unistd.h>

static char order[64];
static volatile int ready;
static char leave;      /* (no strcmp: a library call in the trace) */

struct Guard {
	const char *name;
	__attribute__((noinline)) explicit Guard(const char *n) : name(n) {}
	__attribute__((noinline)) ~Guard() { strcat(order, name); }
};

__attribute__((noinline)) void wait_here(void)
{
	Guard c("c");
	if (leave == 'p')
		pthread_exit((void *)7L);
	if (leave == 't')
		thrd_exit(7);
	ready = 1;
	for (;;)
		usleep(1000);
}

/* a catch of the forced unwind that throws it on, as C++ code that
 * cleans up in catch (...) does: it notes "!" */
__attribute__((noinline)) void middle(void)
{
	Guard b("b");
	try {
		wait_here();
	} catch (abi::__forced_unwind &) {
		volatile char *o = order;      /* (no strcat: a library call here) */
		size_t k = 0;
		while (o[k])
			k++;
		o[k] = '!';
		throw;
	}
}

__attribute__((noinline)) void *worker(void *)
{
	Guard a("a");
	middle();
	return NULL;
}

__attribute__((noinline)) int after(int x) { return x + 1; }

int main(int argc, char **argv)
{
	pthread_t t;
	void *ret = NULL;
	if (argc > 1)
		leave = argv[1][0];
	pthread_create(&t, NULL, worker, NULL);
	if (leave) {
		pthread_join(t, &ret);
		printf("destructors %s, exited %ld\n", order, (long)ret);
		return after(1) == 2 ? 0 : 1;
	}
	while (!ready)
		usleep(100);
	pthread_cancel(t);
	pthread_join(t, &ret);
	printf("destructors %s, cancelled %d\n", order, ret == PTHREAD_CANCELED);
	return after(1) == 2 ? 0 : 1;
}
