/* fnt_patch(): two threads call outer() -> inner() in a tight loop while
 * main switches patching on and off 100 times, so threads are caught in the
 * middle of the bytes being switched.  Two cases build it:
 * patch-api-threads with -fpatchable-function-entry=5 (with gcc the pads
 * are five 1-byte NOPs, with clang one 5-byte NOP), and
 * patch-prologue-threads without instrumentation, whose functions -P
 * patches by moving their first instructions to a trampoline (no pads): a
 * thread stopped between two of the moved instructions goes on at the same
 * instruction there. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <time.h>

int fnt_patch(int on) __attribute__((weak));   /* from the preloaded runtime */

static volatile int stop, sink;

__attribute__((noinline)) int inner(int x) { sink++; return x + 1; }
__attribute__((noinline)) long outer(int x) { sink++; return 2L * inner(x); }

static void *worker(void *arg)
{
	long sum = 0, want = 0;
	unsigned long n = 0;
	(void)arg;
	while (!stop) {
		sum += outer((int)(n & 1023));
		want += 2L * ((long)(n & 1023) + 1);
		n++;
		for (int k = 0; k < 300; k++)
			sink++;
	}
	return (void *)(long)(sum == want && n > 0);
}

static int ready[2], go[2];
static volatile int spinning;

/* a thread that blocks every signal for a moment while it runs, as a new
 * thread does until glibc's start-up sets its mask (on a loaded machine
 * that moment lasted 20 to 50 ms, and fnt_patch right after pthread_create
 * failed): fnt_patch waits for it */
static void *spinner(void *arg)
{
	sigset_t all, old;
	struct timespec t0, now;
	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	spinning = 1;
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec) < 150000000L);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (;;)    /* until cancelled: a thread that no longer blocks SIGTRAP */
		pause();
	return NULL;
}

/* a thread that blocks every signal (a sigwait thread, say): a switch
 * would be unsafe while it runs, fnt_patch refuses */
static void *blocker(void *arg)
{
	sigset_t all;
	char c;
	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int on_ok = 0, off_ok = 0;
	if (!fnt_patch)
		return 3;
	/* nothing to do yet: recording starts unpatched (--patch-signal) */
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 100; i++) {
		struct timespec ts = { 0, 100000 };
		on_ok += fnt_patch(1) == 0;
		nanosleep(&ts, NULL);
		off_ok += fnt_patch(0) == 0;
		nanosleep(&ts, NULL);
	}
	stop = 1;
	void *r0, *r1;
	pthread_join(t[0], &r0);
	pthread_join(t[1], &r1);
	pthread_t b;
	char c;
	int refused, after;
	if (pipe(ready) || pipe(go))
		return 4;
	pthread_create(&b, NULL, blocker, NULL);
	if (read(ready[0], &c, 1) != 1)
		return 5;
	refused = fnt_patch(1);
	if (write(go[1], "g", 1) != 1)
		return 6;
	pthread_join(b, NULL);
	after = fnt_patch(1) == 0 && fnt_patch(0) == 0;
	pthread_t sp;
	int waited;
	pthread_create(&sp, NULL, spinner, NULL);
	while (!spinning)
		sched_yield();
	waited = fnt_patch(1);
	pthread_cancel(sp);
	pthread_join(sp, NULL);
	fnt_patch(0);
	printf("on %d off %d results %s; with SIGTRAP blocked %d, then %d; blocked by a running thread %d\n",
	       on_ok, off_ok, r0 && r1 ? "right" : "WRONG", refused, after, waited);
	/* untraced from here: these calls must not show */
	for (int i = 0; i < 10; i++)
		inner(i);
	return 0;
}
