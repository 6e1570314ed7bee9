/* live view: a program that runs for two seconds; its first phase must be
 * printed by `fntrace live` before it prints MARKER (1.5 s later) */
#include <stdio.h>
#include <pthread.h>
#include <time.h>
#define NOINLINE __attribute__((noinline))
static void nap(long ms) { struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L }; while (nanosleep(&ts, &ts)) ; }
NOINLINE int one_leaf(int x) { __asm__ volatile(""); return x + 1; }
NOINLINE int phase_one(void) { int s = 0; for (int i = 0; i < 3; i++) s += one_leaf(i); return s; }
NOINLINE int two_leaf(int x) { __asm__ volatile(""); return x * 2; }
NOINLINE int phase_two(void) { int s = 0; for (int i = 0; i < 3; i++) s += two_leaf(i); return s; }
NOINLINE void *helper(void *a) { (void)a; nap(200); two_leaf(7); return NULL; }
int main(void) {
	pthread_t th;
	int s = phase_one();
	pthread_create(&th, NULL, helper, NULL);
	nap(1500);
	printf("MARKER after phase one\n");
	fflush(stdout);
	pthread_join(th, NULL);
	nap(500);
	s += phase_two();
	return s == 12 ? 0 : 1;
}
