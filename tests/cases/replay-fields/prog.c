/* replay --fields: a few nested calls in two functions and a thread */
#include <pthread.h>
__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}
__attribute__((noinline)) int mid(int x)
{
	return leaf(x) + leaf(x + 1);
}
__attribute__((noinline)) void *worker(void *a)
{
	return (void *)(long)mid((int)(long)a);
}
int main(void)
{
	pthread_t t;
	int s = mid(1);
	pthread_create(&t, 0, worker, (void *)2L);
	pthread_join(t, 0);
	return s == 5 ? 0 : 1;
}
