/* a multithreaded program dies by SIGSEGV while two workers are parked in
 * the middle of a call: every thread keeps every event it recorded, across
 * many small chunks (record --chunk-size 16K) */
#include <pthread.h>
#include <unistd.h>
static pthread_barrier_t parked;
__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void park(void) {
	pthread_barrier_wait(&parked);
	for (;;) pause();
}
__attribute__((noinline)) void *worker(void *arg) {
	long n = (long)arg;
	for (long i = 0; i < n; i++) work((int)i);
	park();
	return 0;
}
__attribute__((noinline)) void crash(int x) { volatile int *p = 0; *p = x; }
int main(void) {
	pthread_t t1, t2;
	pthread_barrier_init(&parked, 0, 3);
	pthread_create(&t1, 0, worker, (void *)30000L);
	pthread_create(&t2, 0, worker, (void *)50000L);
	pthread_barrier_wait(&parked);
	work(0);
	crash(1);
	return 0;
}
