/* Threads with asynchronous cancellation, cancelled while they make traced
 * calls, round after round (argv[1] rounds of 4): each must end as
 * cancelled (pthread_join's result PTHREAD_CANCELED) with its cleanup run,
 * and no round may stall. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int sink;
static int cleanups, running;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) int leaf(int i) { return i * 3; }
__attribute__((noinline)) int mid(int i) { return leaf(i) + leaf(i + 1); }

static void cleanup(void *a)
{
	(void)a;
	pthread_mutex_lock(&mu);
	cleanups++;
	pthread_mutex_unlock(&mu);
}

static void *worker(void *a)
{
	(void)a;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	pthread_cleanup_push(cleanup, NULL);
	__atomic_add_fetch(&running, 1, __ATOMIC_RELEASE);
	for (int i = 0;; i++)
		sink += mid(i);
	pthread_cleanup_pop(0);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100, cancelled = 0, other = 0;
	for (int k = 0; k < rounds; k++) {
		pthread_t t[4];
		for (int j = 0; j < 4; j++)
			if (pthread_create(&t[j], NULL, worker, NULL))
				return 1;
		while (__atomic_load_n(&running, __ATOMIC_ACQUIRE) < 4 * (k + 1))
			usleep(50);     /* every one in its loop, its cleanup pushed */
		usleep(100 + (k * 37) % 900);
		for (int j = 0; j < 4; j++)
			pthread_cancel(t[j]);
		for (int j = 0; j < 4; j++) {
			void *r = (void *)1;
			pthread_join(t[j], &r);
			cancelled += r == PTHREAD_CANCELED;
			other += r != PTHREAD_CANCELED;
		}
	}
	for (int i = 0; i < 1000; i++)
		sink += mid(i);
	printf("cancelled %d, other results %d, cleanups %d\n", cancelled, other, cleanups);
	return 0;
}
