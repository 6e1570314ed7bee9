/* A timer's handler that siglongjmps out 20 times: the signal lands, most of
 * the time, while leaf()'s hook holds the runtime's guard, and the jump
 * leaves that hook for good.  Every later call must still be recorded (the
 * guard was left held: the rest of the thread was dropped as "inside a
 * signal handler").  The calls a jump left count too: leaf() is entered
 * between 2,000,000 and 2,000,020 times. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

static sigjmp_buf jb;
static volatile long calls, jumps;

__attribute__((noinline)) void leaf(void)
{
	calls++;
}

static void on_alarm(int sig)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	(void)sig;
	if (jumps < 20) {
		jumps++;
		siglongjmp(jb, 1);
	}
	setitimer(ITIMER_REAL, &off, NULL);     /* 21 alarms in all */
}

int main(void)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	sigsetjmp(jb, 1);
	while (calls < 2000000)
		leaf();
	printf("leaf %ld\n", calls);
	return 0;
}
