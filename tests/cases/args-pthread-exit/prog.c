/* -pg -mfentry: pthread_exit from nested traced frames runs the thread's
 * cleanup handlers and returns its value to pthread_join */
#include <pthread.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void cleanup(void *arg)
{
	printf("cleanup %s\n", (const char *)arg);
}

__attribute__((noinline)) int leave(int depth)
{
	sink++;
	if (depth == 0)
		pthread_exit((void *)42);
	return leave(depth - 1) + 1;
}

__attribute__((noinline)) void *worker(void *arg)
{
	(void)arg;
	pthread_cleanup_push(cleanup, "outer");
	pthread_cleanup_push(cleanup, "inner");
	leave(3);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	return NULL;
}

__attribute__((noinline)) int after(int x) { sink++; return x * 2; }

int main(void)
{
	pthread_t t;
	void *ret = NULL;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, &ret);
	printf("joined %ld\n", (long)ret);
	after(21);
	return 0;
}
