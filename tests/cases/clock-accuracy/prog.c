/* Intervals the program times itself with CLOCK_MONOTONIC, from its first
 * traced call on.  For each it prints what it measured inside the call
 * (inner) and around it (outer): the call's true duration lies between,
 * so the trace's duration for it must too, within the clock's error. */
#include <stdio.h>
#include <time.h>

__attribute__((no_instrument_function)) static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

__attribute__((no_instrument_function)) static long long spin_ns(long long ns)
{
	long long t0 = now_ns(), t1;
	while ((t1 = now_ns()) - t0 < ns)
		;
	return t1 - t0;
}

#define INTERVAL(name, ms) \
	__attribute__((noinline)) long long name(void) { return spin_ns(ms * 1000000ll); }
INTERVAL(interval_2ms, 2)
INTERVAL(interval_5ms, 5)
INTERVAL(interval_20ms, 20)
INTERVAL(interval_50ms, 50)
INTERVAL(interval_100ms, 100)

int main(void)
{
	static long long (*const fns[])(void) = { interval_2ms, interval_5ms, interval_20ms, interval_50ms,
						  interval_100ms };
	static const char *const names[] = { "interval_2ms", "interval_5ms", "interval_20ms", "interval_50ms",
					     "interval_100ms" };
	long long inner[5], outer[5];
	for (int i = 0; i < 5; i++) {
		long long m0 = now_ns();
		inner[i] = fns[i]();
		outer[i] = now_ns() - m0;
	}
	for (int i = 0; i < 5; i++)
		printf("%s %lld %lld\n", names[i], inner[i], outer[i]);
	return 0;
}
