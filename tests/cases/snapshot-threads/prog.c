/* 10 snapshots through the API while three threads keep writing into
 * their rings: each snapshot must read back cleanly, whole calls only */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include "fntrace.h"
static volatile long sink; static volatile int stop;
__attribute__((noinline)) void f(long i) { sink += i; }
__attribute__((noinline)) void g(long i) { f(i); f(i + 1); }
__attribute__((noinline)) void *worker(void *a) { (void)a; long i = 0; while (!stop) g(i++); return 0; }
int main(void) {
	pthread_t t[3]; char name[16];
	for (long i = 0; i < 3; i++) pthread_create(&t[i], 0, worker, 0);
	for (int k = 0; k < 10; k++) { struct timespec ts = {0, 5000000}; nanosleep(&ts, 0); snprintf(name, sizeof name, "s%02d", k); if (fnt_snapshot(name)) printf("fail %d\n", k); }
	stop = 1; for (int i = 0; i < 3; i++) pthread_join(t[i], 0); return 0; }
