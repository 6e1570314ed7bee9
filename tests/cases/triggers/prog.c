/* -T triggers, -H, -C and --max-stack (issue 14): a small deterministic
 * call tree; slow() lasts at least 3 ms, quick() a few microseconds.  One
 * function a line, so that a function's line and its hook call's line are
 * the same in every build (the backtrace lines name them).  An argument: 200 ms more. */
#include <time.h>
static inline __attribute__((always_inline, no_instrument_function)) void spin_ms(long ms) { struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a); do clock_gettime(CLOCK_MONOTONIC, &b); while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ms * 1000000L); }
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + leaf(x + 1); }
__attribute__((noinline)) int top(int x) { return mid(x) * 2; }
__attribute__((noinline)) int quick(int x) { return top(x) + 1; }
__attribute__((noinline)) int slow(int x) { spin_ms(3); return top(x) + 1; }
__attribute__((noinline)) int start(void) { __asm__ volatile(""); return 1; }
__attribute__((noinline)) int stop(void) { __asm__ volatile(""); return 1; }
int main(int argc, char **argv)
{
	int s = mid(1);
	s += start();
	s += top(2);
	s += stop();
	s += quick(3);
	s += slow(4);
	s += quick(5);
	if (argc > 1) spin_ms(200); return s == 90 && argv ? 0 : 1;
}
