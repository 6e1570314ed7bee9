/*
 * hookrep.c - the per-call cost of a hook, measured so that a busy machine
 * does not move it: fib(N) (a tiny recursive function, 2 F(N+1) - 1 calls)
 * is run R times, each timed alone, and the fastest repetition counts.  A
 * repetition takes a few hundred microseconds, so on a loaded machine most
 * are preempted or share the core, but some run undisturbed, and the
 * fastest is what the hooks cost with the machine to themselves.  Built
 * three ways by bench/run.py: plain, -finstrument-functions and
 * -pg -mfentry; main and the timing are never instrumented.
 *
 * Prints "best_ns_per_call X calls N reps R".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((no_instrument_function)) static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 18, reps = argc > 2 ? atoi(argv[2]) : 1000;
	long a = 1, b = 1, calls;
	double best = 1e30;
	volatile int sink = 0;

	for (int i = 0; i < n; i++) {
		long c = a + b;
		a = b;
		b = c;
	}
	calls = 2 * a - 1;      /* fib(n) makes 2 F(n+1) - 1 calls */
	for (int r = 0; r < reps; r++) {
		double t0 = now_ns();
		sink += fib(n);
		double t1 = now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	printf("best_ns_per_call %.3f calls %ld reps %d\n", best / calls, calls, reps);
	return sink == 12345678;
}
