/* deferred cancels of a thread making many traced calls, with a cleanup
 * handler: the runtime blocked the signals around a new chunk's
 * fallocate, a cancellation point, and glibc waited there for its
 * cancellation signal for good (the program hung in pthread_join) */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile int ready, sink;

__attribute__((noinline)) void leaf(int i) { sink += i; }
static void cleanup(void *a) { (void)a; }

__attribute__((noinline)) void *worker(void *a)
{
	(void)a;
	pthread_cleanup_push(cleanup, 0);
	ready = 1;
	for (int i = 0;; i++) {
		leaf(i);
		if ((i & 1023) == 0)
			pthread_testcancel();
	}
	pthread_cleanup_pop(0);
	return 0;
}

int main(void)
{
	int n = 0;
	for (int k = 0; k < 150; k++) {
		pthread_t t;
		void *r;
		ready = 0;
		pthread_create(&t, 0, worker, 0);
		while (!ready)
			usleep(100);
		usleep(500 + (k * 37) % 2000);
		pthread_cancel(t);
		pthread_join(t, &r);
		n += r == PTHREAD_CANCELED;
	}
	printf("cancelled %d\n", n);
	return 0;
}
