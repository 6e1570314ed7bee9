/* 10 snapshots through the API while three threads keep writing into
 * their rings: each snapshot must read back cleanly, whole calls only.
 * The first waits (a minute at most) until each worker made 1000 g calls:
 * on a loaded machine one may not have run yet, or hardly, 5 ms after
 * its start */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include "fntrace.h"
static volatile long sink; static volatile int stop; static int started;
__attribute__((noinline)) void f(long i) { sink += i; }
__attribute__((noinline)) void g(long i) { f(i); f(i + 1); }
__attribute__((noinline)) void *worker(void *a) { (void)a; long i = 0; while (!stop) { g(i++); if (i == 1000) __atomic_fetch_add(&started, 1, __ATOMIC_RELAXED); } return 0; }
int main(void) {
	pthread_t t[3]; char name[16];
	for (long i = 0; i < 3; i++) pthread_create(&t[i], 0, worker, 0);
	for (int w = 0; w < 60000 && __atomic_load_n(&started, __ATOMIC_RELAXED) < 3; w++) { struct timespec ts = {0, 1000000}; nanosleep(&ts, 0); }
	for (int k = 0; k < 10; k++) { struct timespec ts = {0, 5000000}; nanosleep(&ts, 0); snprintf(name, sizeof name, "s%02d", k); if (fnt_snapshot(name)) printf("fail %d\n", k); }
	stop = 1; for (int i = 0; i < 3; i++) pthread_join(t[i], 0); return 0; }
