/* asynchronous cancellation of a thread busy in traced calls, 100 times:
 * the signal lands anywhere, in the runtime's hooks and its return
 * trampoline too (an unwind from inside the trampoline was sent to the
 * landing made for a swapped return address, and crashed) */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile int ready, sink;

__attribute__((noinline)) int leaf(int i) { return i * 3; }
__attribute__((noinline)) int mid(int i) { return leaf(i) + leaf(i + 1); }

static void *worker(void *a)
{
	(void)a;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	ready = 1;
	for (int i = 0;; i++)
		sink += mid(i);
	return NULL;
}

int main(void)
{
	int cancelled = 0;
	for (int k = 0; k < 100; k++) {
		pthread_t t;
		void *r;
		ready = 0;
		pthread_create(&t, NULL, worker, NULL);
		while (!ready)
			usleep(50);
		usleep(200 + (k * 53) % 700);
		pthread_cancel(t);
		pthread_join(t, &r);
		cancelled += r == PTHREAD_CANCELED;
	}
	printf("cancelled %d of 100\n", cancelled);
	return 0;
}
