/* pthread_cancel of a thread waiting at a cancellation point (a traced
 * library call: usleep) under traced frames whose return addresses are
 * swapped: the cancellation's forced unwind must run the destructors of
 * every frame, innermost first, and pthread_join get PTHREAD_CANCELED.
 * The destructors note their order; main prints it after the join. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char order[64];
static volatile int ready;

struct Guard {
	const char *name;
	__attribute__((noinline)) explicit Guard(const char *n) : name(n) {}
	__attribute__((noinline)) ~Guard() { strcat(order, name); }
};

__attribute__((noinline)) void wait_here(void)
{
	Guard c("c");
	ready = 1;
	for (;;)
		usleep(1000);
}

__attribute__((noinline)) void middle(void)
{
	Guard b("b");
	wait_here();
}

__attribute__((noinline)) void *worker(void *)
{
	Guard a("a");
	middle();
	return NULL;
}

__attribute__((noinline)) int after(int x) { return x + 1; }

int main(void)
{
	pthread_t t;
	void *ret = NULL;
	pthread_create(&t, NULL, worker, NULL);
	while (!ready)
		usleep(100);
	pthread_cancel(t);
	pthread_join(t, &ret);
	printf("destructors %s, cancelled %d\n", order, ret == PTHREAD_CANCELED);
	return after(1) == 2 ? 0 : 1;
}
