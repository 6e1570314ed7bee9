/* pthread_exit from inside a library call's callback (qsort's comparator,
 * on a thread): the thread ends, its traced frames close as unwound, and
 * the rest of the program is traced as usual */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int calls;

__attribute__((noinline)) static int cmp_exit(const void *a, const void *b)
{
	if (++calls == 2)
		pthread_exit((void *)7L);
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	int v[4] = { 4, 2, 3, 1 };
	(void)arg;
	qsort(v, 4, sizeof(int), cmp_exit);
	return NULL;
}

int main(void)
{
	pthread_t t;
	void *ret = NULL;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, &ret);
	int v[3] = { 3, 1, 2 };
	calls = 10;
	qsort(v, 3, sizeof(int), cmp_exit);
	printf("thread returned %ld, sorted %d %d %d\n", (long)ret, v[0], v[1], v[2]);
	return 0;
}
