/* one slow call (about 3 ms of spinning on the clock) and quick ones: the
 * slow duration is coloured red, the quick ones are not */
#include <stdio.h>
#include <time.h>

__attribute__((no_instrument_function)) static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void slow(void)
{
	double t0 = now();
	while (now() - t0 < 0.003)
		;
}

__attribute__((noinline)) static int quick(int i)
{
	return i + 1;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += quick(i);
	slow();
	printf("%d\n", s);
	return 0;
}
