/* three phases separated by 100 ms sleeps: --since/--until windows that fall
 * in the gaps select whole phases, with exact counts */
#include <time.h>
__attribute__((noinline)) int a(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int b(int x) { __asm__ volatile(""); return x + 2; }
__attribute__((noinline)) int c(int x) { __asm__ volatile(""); return x + 3; }
__attribute__((noinline)) void phase1(void) { for (int i = 0; i < 5; i++) a(i); }
__attribute__((noinline)) void phase2(void) { for (int i = 0; i < 7; i++) b(i); }
__attribute__((noinline)) void phase3(void) { for (int i = 0; i < 3; i++) c(i); }
__attribute__((no_instrument_function)) static void nap(void) { struct timespec ts = { 0, 100000000 }; nanosleep(&ts, 0); }
int main(void) {
	phase1();
	nap();
	phase2();
	nap();
	phase3();
	return 0;
}
