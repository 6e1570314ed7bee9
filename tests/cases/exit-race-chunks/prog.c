/* Threads that make calls until the process exits under them: exit()
 * ends them wherever they are, some between taking a chunk's number and
 * reserving its blocks. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4

static volatile int sink;
static int started;

__attribute__((noinline)) void leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) void work(int i)
{
	leaf(i);
	leaf(i + 1);
}

static void *run(void *a)
{
	(void)a;
	for (int i = 0;; i++) {
		work(i);
		if (i == 20000)
			__atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, run, NULL))
			return 1;
	/* every thread well into its chunks, then exit with them running */
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < THREADS)
		;
	printf("exiting\n");
	fflush(stdout);
	exit(0);
}
