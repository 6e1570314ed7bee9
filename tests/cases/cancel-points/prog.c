/* A traced call is no cancellation point: a thread that holds a mutex
 * across traced calls, and polls pthread_testcancel only with the mutex
 * released, is never cancelled with the mutex held.  (The runtime's
 * fallocate of a new chunk, a cancellation point, took a pending cancel
 * inside work()'s hook.) */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int ready, sink;

__attribute__((noinline)) void work(int i) { sink += i; }

__attribute__((noinline)) void *worker(void *a)
{
	(void)a;
	ready = 1;
	for (int i = 0;; i++) {
		pthread_mutex_lock(&m);
		for (int j = 0; j < 64; j++)
			work(j);
		pthread_mutex_unlock(&m);
		if (i % 4096 == 0)
			pthread_testcancel();
	}
	return 0;
}

int main(void)
{
	for (int k = 0; k < 50; k++) {
		pthread_t t;
		void *r;
		ready = 0;
		pthread_create(&t, 0, worker, 0);
		while (!ready)
			usleep(100);
		usleep(1000 + (k * 37) % 2000);
		pthread_cancel(t);
		pthread_join(t, &r);
		if (pthread_mutex_trylock(&m) != 0) {
			printf("round %d: cancelled with the mutex held\n", k);
			return 1;
		}
		pthread_mutex_unlock(&m);
	}
	printf("done\n");
	return 0;
}
