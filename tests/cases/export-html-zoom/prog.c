/* the html timeline reaches individual calls: a busy stretch of 400,000
 * short calls, then a quiet one of 200 even shorter calls 50 us apart.  A
 * single threshold for the whole run (the busy stretch needs one) left every
 * call of the quiet stretch as grey density. */
#include <time.h>
__attribute__((noinline)) int tiny(int x)
{
	for (int i = 0; i < 20; i++)
		__asm__ volatile("" : "+r"(x));
	return x + 1;
}
__attribute__((noinline)) int busy(void)
{
	int s = 0;
	for (int i = 0; i < 400000; i++)
		s += tiny(i);
	return s;
}
__attribute__((noinline)) int quiet_leaf(int x) { return x ^ 5; }
__attribute__((no_instrument_function)) static long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}
__attribute__((noinline)) int quiet(void)
{
	int s = 0;
	for (int i = 0; i < 200; i++) {
		long t = now_ns();
		while (now_ns() - t < 50000)
			;
		s += quiet_leaf(i);
	}
	return s;
}
int main(void)
{
	return busy() + quiet() == 0 ? 1 : 0;
}
