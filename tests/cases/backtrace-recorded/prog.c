/* Backtraces a recording stores (record -T leaf@backtrace), as replay
 * shows them: on the main thread down to main, on another thread down to
 * its start function (not libc's start_thread and clone3 below them), with
 * or without record-time filters.  One function a line: each call's line
 * is its function's line in every build. */
#include <pthread.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) * 2; }
__attribute__((noinline)) void *worker(void *a) { return (void *)(long)mid((int)(long)a); }
int main(void)
{
	pthread_t t;
	void *r;
	int s = mid(1);
	pthread_create(&t, 0, worker, (void *)2L);
	pthread_join(t, &r);
	return s + (int)(long)r == 10 ? 0 : 1;
}
