/* two threads, nested calls, a leaf called many times */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) static int leaf(int i)
{
	return i * 3;
}

__attribute__((noinline)) static int mid(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

static void *worker(void *arg)
{
	return (void *)(long)mid((int)(long)arg);
}

int main(void)
{
	pthread_t t;
	void *r;
	pthread_create(&t, NULL, worker, (void *)5L);
	int s = mid(3);
	pthread_join(t, &r);
	printf("%d %ld\n", s, (long)r);
	return 0;
}
