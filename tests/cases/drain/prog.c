/* drain: the program's event chunks go through the ring that fntrace record
 * drains (doc/perf-floor.md).  Modes:
 *   threads N  - 4 threads, N calls of work() each, far more events than the
 *                ring holds; prints whether the ring is mapped here
 *   kill N     - N calls of work(), then SIGKILL: the slots being written
 *                are copied out by record after the death
 *   exec N     - N calls, then exec itself in "threads 1000" mode: the
 *                first image's slot is final once the second one starts
 *   snap N     - N calls, a pause, N calls, fnt_snapshot("mid")
 *   bg N FILE  - N calls in a process that outlives the one record started
 *                (sh -c 'prog bg ... &'), then 10 once record has left: it
 *                writes the slot those are in itself
 *   tail N     - N calls, a pause in which record copies them, N more, and
 *                the exit (run by launch, which leaves it a zombie)
 *   many N MS  - N threads (more than the ring's 64 slots) make 10 calls
 *                each, then all stay alive MS milliseconds, idle: each
 *                holds a slot or maps its chunk from the file
 *   rkill N FILE [stop] - 8 threads of N calls each; a quarter of the
 *                way, record (the parent) is killed with SIGKILL, or
 *                stopped with SIGSTOP, then the rest, and one call more in
 *                the main thread: the threads write the ring's slots into
 *                the file themselves (FILE: this process's pid, for the
 *                test to wait on)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define FNT_WEAK
#include "fntrace.h"

__attribute__((noinline)) long work(long x)
{
	__asm__ volatile("");
	return x * 3 + 1;
}

static long calls;

static void *thread_main(void *arg)
{
	long s = 0;
	for (long i = 0; i < calls; i++)
		s += work(i);
	return (void *)s;
}

static pthread_barrier_t all_called;
static long idle_ms;

static void *thread_idle(void *arg)
{
	long s = 0;
	for (long i = 0; i < 10; i++)
		s += work(i);
	pthread_barrier_wait(&all_called);
	struct timespec ts = { idle_ms / 1000, idle_ms % 1000 * 1000000 };
	nanosleep(&ts, NULL);
	return (void *)s;
}

static pthread_barrier_t quarter;

/* a quarter of its calls, a wait while record is killed, the rest */
static void *thread_rkill(void *arg)
{
	long s = 0, i = 0;
	for (; i < calls / 4; i++)
		s += work(i);
	pthread_barrier_wait(&quarter);
	pthread_barrier_wait(&quarter);
	for (; i < calls; i++)
		s += work(i);
	return (void *)s;
}

static int ring_mapped(void)
{
	char line[512];
	int n = 0;
	FILE *m = fopen("/proc/self/maps", "r");
	if (!m)
		return -1;
	while (fgets(line, sizeof line, m))
		n += strstr(line, "memfd:fntrace-ring") != NULL;
	fclose(m);
	return n > 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	calls = atol(argv[2]);
	if (!strcmp(argv[1], "threads")) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, thread_main, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		printf("ring %d\n", ring_mapped());
		return 0;
	}
	if (!strcmp(argv[1], "tail")) {
		struct timespec ts = { 0, 200000000 };
		thread_main(NULL);
		nanosleep(&ts, NULL);
		thread_main(NULL);
		return 0;
	}
	if (!strcmp(argv[1], "many") && argc > 3) {
		pthread_t t[200];
		int n = (int)calls;
		idle_ms = atol(argv[3]);
		if (n < 1 || n > 200)
			return 2;
		pthread_barrier_init(&all_called, NULL, (unsigned)n);
		for (int i = 0; i < n; i++)
			pthread_create(&t[i], NULL, thread_idle, NULL);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (!strcmp(argv[1], "rkill") && argc > 3) {
		pthread_t t[8];
		pid_t parent = getppid();
		FILE *f = fopen(argv[3], "w");
		if (!f)
			return 3;
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
		pthread_barrier_init(&quarter, NULL, 9);
		for (int i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, thread_rkill, NULL);
		int stop = argc > 4 && !strcmp(argv[4], "stop");
		pthread_barrier_wait(&quarter);
		kill(parent, stop ? SIGSTOP : SIGKILL);
		for (int i = 0; i < 3000 && !stop && getppid() == parent; i++)
			usleep(1000);   /* record has died (its children moved to another parent) */
		pthread_barrier_wait(&quarter);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
		work(-1);               /* in the main thread's last chunk */
		return 0;
	}
	if (!strcmp(argv[1], "kill")) {
		thread_main(NULL);
		printf("ring %d\n", ring_mapped());
		fflush(stdout);
		raise(SIGKILL);
	}
	if (!strcmp(argv[1], "exec")) {
		thread_main(NULL);
		execl("/proc/self/exe", argv[0], "threads", "1000", (char *)NULL);
		return 3;
	}
	if (!strcmp(argv[1], "snap")) {
		/* N calls, a pause long enough for record to copy the slot being
		 * written into the file (it does every 50 ms), N more, then a
		 * snapshot: it must hold all 2N, not the file's older copy */
		struct timespec ts = { 0, 300000000 };
		thread_main(NULL);
		nanosleep(&ts, NULL);
		thread_main(NULL);
		return fnt_snapshot("mid") == 0 ? 0 : 3;
	}
	if (!strcmp(argv[1], "bg") && argc > 3) {
		/* N calls into the ring, then tell the shell to exit (it is the
		 * process record started: record leaves), wait until it has,
		 * then 10 calls more: the slot they are in is copied out by this
		 * process at its exit */
		pid_t parent = getppid();
		thread_main(NULL);
		FILE *f = fopen(argv[3], "w");
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
		for (int i = 0; i < 3000 && getppid() == parent; i++)
			usleep(10000);
		usleep(100000);         /* record has seen its child go (not relied on for the count) */
		for (int i = 0; i < 10; i++)
			work(i);
		return 0;
	}
	return 2;
}
