/* Two threads, each with its own 20 us timer whose handler runs on the
 * thread's sigaltstack and siglongjmps back to the thread's loop, 200
 * times.  Each signal enters the signal stack anew, a stack switch for the
 * runtime, and with alarms every 20 us one lands in such a switch now and
 * then: its handler's jump left the switch half made and the guard held,
 * and the thread recorded nothing more (its calls counted as lost), on
 * every run.  Every call must be recorded, under its own thread, at its
 * own depth.  "return": the handlers return, and never jump (a -pg
 * program then aborted, "shadow stack out of sync", or crashed: a handler
 * that landed in the runtime's search for a returning frame's stack left
 * the thread on the signal stack).
 *
 * Handlers nest: siglongjmp unblocks the signal before it leaves the
 * signal stack, and an alarm pending by then runs its handler below the
 * first one's frame, on the same stack.  With each signal frame 3 KiB or
 * more (AVX-512's register state) and a slow delivery, a nest of up to
 * JUMPS + 1 handlers is seen: 340 KB untraced.  The signal stack is sized
 * for that, and has a guard page below it: a 64 KiB one from malloc was
 * overrun into the heap, and the program died in free() ("invalid
 * pointer") or by SIGSEGV, traced or not. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define THREADS 2
#define JUMPS 200
#define CALLS 2000000
#define ALT_SIZE (16 << 20)    /* mapped on demand: what a nest touches */

static __thread sigjmp_buf jb;
static __thread volatile long calls, jumps;
static __thread volatile int armed;
static long max_jumps = JUMPS;

__attribute__((noinline)) void leaf(void)
{
	calls++;
}

static void on_sig(int sig)
{
	(void)sig;
	if (armed && jumps < max_jumps) {
		jumps++;
		siglongjmp(jb, 1);
	}
}

static void *run(void *arg)
{
	timer_t tm;
	struct sigevent sev;
	struct itimerspec its = { { 0, 20000 }, { 0, 20000 } };
	static const struct itimerspec off;
	char *alt = mmap(NULL, ALT_SIZE + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	stack_t ss = { .ss_sp = alt + 4096, .ss_size = ALT_SIZE };
	(void)arg;
	if (alt == MAP_FAILED || mprotect(alt, 4096, PROT_NONE) || sigaltstack(&ss, NULL)) {
		perror("signal stack");
		exit(1);
	}
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGRTMIN;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &tm)) {
		perror("timer_create");
		exit(1);
	}
	if (!sigsetjmp(jb, 1)) {        /* the buffer is set before the first alarm */
		armed = 1;
		timer_settime(tm, 0, &its, NULL);
	}
	while (calls < CALLS)
		leaf();
	armed = 0;
	timer_settime(tm, 0, &off, NULL);
	timer_delete(tm);
	return (void *)calls;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sig, .sa_flags = SA_ONSTACK };
	pthread_t th[THREADS];
	long total = 0;
	if (argc > 1 && !strcmp(argv[1], "return"))
		max_jumps = 0;
	sigaction(SIGRTMIN, &sa, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, run, NULL);
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(th[i], &r);
		total += (long)r;
	}
	printf("leaf %ld\n", total);
	return 0;
}
