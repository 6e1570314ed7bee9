/* live view: a program that runs for two seconds; its first phase must be
 * printed by `fntrace live` before it prints MARKER (1.5 s later; with
 * LIVE_GO set, once the test, having seen it, makes that file) */
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#define NOINLINE __attribute__((noinline))
static void nap(long ms) { struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L }; while (nanosleep(&ts, &ts)) ; }
NOINLINE int one_leaf(int x) { __asm__ volatile(""); return x + 1; }
NOINLINE int phase_one(void) { int s = 0; for (int i = 0; i < 3; i++) s += one_leaf(i); return s; }
NOINLINE int two_leaf(int x) { __asm__ volatile(""); return x * 2; }
NOINLINE int phase_two(void) { int s = 0; for (int i = 0; i < 3; i++) s += two_leaf(i); return s; }
NOINLINE void *helper(void *a) { (void)a; nap(200); two_leaf(7); return NULL; }
/* LIVE_GO: wait for that file (a minute at most; not traced), then no nap:
 * a viewer late by more than the nap (a loaded machine) would fail the test */
__attribute__((no_instrument_function)) static long go_wait(void) {
	const char *go = getenv("LIVE_GO");
	for (int i = 0; go && i < 6000 && access(go, F_OK); i++) { struct timespec ts = { 0, 10000000 }; nanosleep(&ts, NULL); }
	return go ? 0 : 1500; }
int main(void) {
	pthread_t th;
	int s = phase_one();
	pthread_create(&th, NULL, helper, NULL);
	nap(go_wait());
	printf("MARKER after phase one\n");
	fflush(stdout);
	pthread_join(th, NULL);
	nap(500);
	s += phase_two();
	return s == 12 ? 0 : 1;
}
