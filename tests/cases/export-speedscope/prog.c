/* speedscope round trip: two threads, nesting three deep, recursion, and
 * tiny leaves whose entry and exit often fall in the same clock tick (the
 * case where speedscope orders a B and an E of equal time by their names
 * and args). */
#include <pthread.h>
#define NI __attribute__((noinline))
NI int leaf(int x) { __asm__ volatile(""); return x + 1; }
NI int mid(int x) { return leaf(x) + leaf(x + 1); }
NI int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
NI void *worker(void *arg) {
	int s = 0;
	pthread_setname_np(pthread_self(), "worker-1");
	for (int i = 0; i < 4; i++) s += mid(i);
	return (void *)(long)(s + fact(4));
}
int main(void) {
	pthread_t t;
	pthread_setname_np(pthread_self(), "main-thread");
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	int s = 0;
	for (int i = 0; i < 3; i++) s += mid(i);
	return s == 0;
}
