/* pthread_create/pthread_join traced in the main thread, printf from the
 * threads: each thread's library calls nest under its own functions */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 3

__attribute__((noinline)) static int work(int k)
{
	void *volatile p = malloc(32 + (size_t)k);
	free(p);
	return k * 2;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	int k = (int)(long)arg;
	printf("worker %d: %d\n", k, work(k));
	return NULL;
}

int main(void)
{
	pthread_t t[N];
	for (long i = 0; i < N; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	printf("joined %d\n", N);
	return 0;
}
