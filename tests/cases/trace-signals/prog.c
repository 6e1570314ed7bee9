/* record --trace=off and --signal SIG@ACTION: three phases separated by
 * signals the program raises itself at known points (no timing) */
#include <signal.h>
__attribute__((noinline)) int a(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int b(int x) { __asm__ volatile(""); return x + 2; }
__attribute__((noinline)) int c(int x) { __asm__ volatile(""); return x + 3; }
__attribute__((noinline)) int phase_one(void) { return a(1) + a(2) + a(3); }
__attribute__((noinline)) int phase_two(void) { return b(1) + b(2) + b(3); }
__attribute__((noinline)) int phase_three(void) { return c(1) + c(2) + c(3); }
int main(void)
{
	int s = phase_one();
	raise(SIGUSR1);
	s += phase_two();
	raise(SIGUSR2);
	s += phase_three();
	return s == 9 + 12 + 15 ? 0 : 1;
}
