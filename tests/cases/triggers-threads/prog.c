/* record-time triggers and -C/-H/--max-stack in a program of 4 threads:
 * each thread calls work() 200 times, 4 of them through target() */
#include <pthread.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int work(int x) { int s = 0; for (int i = 0; i < 1000; i++) s += leaf(i + x); return s; }
__attribute__((noinline)) int target(int x) { return work(x); }
__attribute__((noinline)) void *thr(void *a)
{
	long s = 0;
	for (int i = 0; i < 200; i++)
		s += (i % 50 == 0) ? target(i) : work(i);
	return a ? (void *)s : NULL;
}
int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], 0, thr, 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	return 0;
}
