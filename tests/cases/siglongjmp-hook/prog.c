/* A timer's handler that siglongjmps out 200 times: the signal lands, most
 * of the time, while a hook holds the runtime's guard, and the jump leaves
 * that hook for good, at any instruction of it.  Every later call must
 * still be recorded (the guard was left held: the rest of the thread was
 * dropped as "inside a signal handler"), at its own depth (a jump that left
 * a hook between writing its event and counting it in the depth closed one
 * frame too many or too few: main's calls nested in a leaf() that never
 * returned, or showed outside main), under its own name.  The calls a jump
 * left count too: each function is entered between its share of the calls
 * and that plus 200 times.
 *
 * "many": the loop calls 256 functions in turn, so that nearly every event
 * is a NEW one (the chunk's address cache has 64 slots): the jumps also
 * leave hooks that were filling the cache, which the reader must follow.
 * A second argument "nodefer" leaves the alarm open in its handler; a
 * third, N, jumps N times, every 20 us. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define JUMPS 200
#define CALLS 2000000

static sigjmp_buf jb;
static volatile long calls, jumps, max_jumps = JUMPS;
static volatile unsigned long sink;

__attribute__((noinline)) void leaf(void)
{
	calls++;
}

#define F(X, Y) \
	__attribute__((noinline)) void f##X##Y(void) \
	{ \
		sink += 0x##X##Y; \
		calls++; \
	}
#define F16(X) F(X, 0) F(X, 1) F(X, 2) F(X, 3) F(X, 4) F(X, 5) F(X, 6) F(X, 7) \
	F(X, 8) F(X, 9) F(X, a) F(X, b) F(X, c) F(X, d) F(X, e) F(X, f)
F16(0) F16(1) F16(2) F16(3) F16(4) F16(5) F16(6) F16(7)
F16(8) F16(9) F16(a) F16(b) F16(c) F16(d) F16(e) F16(f)
#define T(X, Y) f##X##Y
#define T16(X) T(X, 0), T(X, 1), T(X, 2), T(X, 3), T(X, 4), T(X, 5), T(X, 6), T(X, 7), \
	T(X, 8), T(X, 9), T(X, a), T(X, b), T(X, c), T(X, d), T(X, e), T(X, f)
static void (*const tab[256])(void) = {
	T16(0), T16(1), T16(2), T16(3), T16(4), T16(5), T16(6), T16(7),
	T16(8), T16(9), T16(a), T16(b), T16(c), T16(d), T16(e), T16(f),
};

static const struct itimerval off = { { 0, 0 }, { 0, 0 } };

static void on_alarm(int sig)
{
	(void)sig;
	if (jumps < max_jumps) {
		jumps++;
		siglongjmp(jb, 1);
	}
	setitimer(ITIMER_REAL, &off, NULL);     /* max_jumps + 1 alarms at most */
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 100 }, { 0, 100 } };
	int many = argc > 1 && !strcmp(argv[1], "many");
	/* "nodefer": the alarm stays open in its handler, and one can land in
	 * the jump of the one before */
	struct sigaction sa = { .sa_handler = on_alarm };
	if (argc > 2 && !strcmp(argv[2], "nodefer"))
		sa.sa_flags = SA_NODEFER;
	if (argc > 3) {
		max_jumps = atol(argv[3]);
		it.it_value.tv_usec = it.it_interval.tv_usec = 20;
	}
	sigaction(SIGALRM, &sa, NULL);
	if (!sigsetjmp(jb, 1))          /* the buffer is set before the first alarm */
		setitimer(ITIMER_REAL, &it, NULL);
	if (many)
		while (calls < CALLS)
			tab[calls & 255]();
	else
		while (calls < CALLS)
			leaf();
	/* no jump back once the calls are made (one now lands at the loop's
	 * test, which sends it here again) */
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN);
	printf("%s %ld\n", many ? "many" : "leaf", calls);
	return 0;
}
