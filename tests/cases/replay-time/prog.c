/* replay --time: the wall-clock time of each line */
#include <time.h>
#include <stdio.h>
__attribute__((noinline)) void nap(void) { struct timespec ts = {0, 20 * 1000 * 1000}; nanosleep(&ts, 0); }
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x * 2; }
int main(void) {
	struct timespec a, b;
	clock_gettime(CLOCK_REALTIME, &a);
	leaf(1);
	nap();
	leaf(2);
	clock_gettime(CLOCK_REALTIME, &b);
	printf("%lld %lld\n", (long long)a.tv_sec * 1000000000LL + a.tv_nsec,
	       (long long)b.tv_sec * 1000000000LL + b.tv_nsec);
	return 0;
}
