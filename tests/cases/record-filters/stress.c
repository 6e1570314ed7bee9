/* -t under load: many short calls, a few long ones, small chunks */
#include <time.h>
#define NOINLINE __attribute__((noinline))
NOINLINE int tiny(int x) { __asm__ volatile(""); return x + 1; }
NOINLINE int small(int x) { return tiny(x) + tiny(x + 1); }
NOINLINE int medium(int x) { int s = 0; for (int i = 0; i < x % 50; i++) s += small(i); return s; }
NOINLINE void longcall(void) {
	struct timespec ts = { 0, 2 * 1000 * 1000 };
	while (nanosleep(&ts, &ts))
		;
	small(1);
}
int main(void) {
	int s = 0;
	for (int i = 0; i < 20; i++) {
		for (int j = 0; j < 3000; j++)
			s += medium(j);
		longcall();
	}
	return s > 0 ? 0 : 1;
}
