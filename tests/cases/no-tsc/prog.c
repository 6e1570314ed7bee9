/* A program that takes the cycle counter away: prctl(PR_SET_TSC,
 * PR_TSC_SIGSEGV) makes rdtsc (and the vDSO's clock_gettime, which reads
 * the TSC) fault in this thread; seccomp strict mode leaves a thread
 * read, write, _exit and sigreturn only.
 *   tsc, tsc-raw: the TSC taken away with prctl(), or with
 *     syscall(SYS_prctl); the program times its own spins with the
 *     clock_gettime system call, inside each spin and around its call, and
 *     prints both;
 *   strict HOW [signal]: two threads enter seccomp strict mode, through
 *     prctl() (HOW prctl), syscall(SYS_prctl) (sys-prctl) or
 *     syscall(SYS_seccomp) (seccomp): one after 3 traced calls, one before
 *     any (the runtime has set nothing up for it: a -pg shadow stack would
 *     be an mmap).  Each then makes 1000 calls and 40 deep ones (its stack
 *     pointer leaves what the hooks saw), twice; in between, with "signal",
 *     the program sends itself SIGUSR1 (record --patch-signal USR1 switches
 *     the pads of a patchable build on: the other threads are stopped for
 *     it by a signal). */
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int work(int i)
{
	return i * 2 + 1;
}

__attribute__((no_instrument_function)) static long long now_ns(void)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* spins for at least ms milliseconds; returns what it measured */
__attribute__((noinline)) long long spin(int ms)
{
	long long t0 = now_ns(), t1;
	while ((t1 = now_ns()) - t0 < ms * 1000000ll)
		;
	return t1 - t0;
}

/* 512 bytes of stack a level */
__attribute__((noinline)) int deep(int n)
{
	volatile char buf[512];
	buf[0] = (char)n;
	return n ? deep(n - 1) + buf[0] : 0;
}

static int done_pipe[2], go_pipe[2];
static const char *how = "prctl";

__attribute__((noinline)) int strict_work(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += work(i);
	return s + deep(40);
}

/* strict mode, two rounds of calls, a byte to main after each; 0 */
__attribute__((no_instrument_function)) static int strict_rounds(int s)
{
	long r = !strcmp(how, "seccomp") ? syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL) :
		 !strcmp(how, "sys-prctl") ? syscall(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0) :
		 prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
	if (r)
		return -1;
	for (int round = 0; round < 2; round++) {
		char c = (char)((s + strict_work()) & 0x7f);
		if (write(done_pipe[1], &c, 1) != 1 || (round == 0 && read(go_pipe[0], &c, 1) != 1))
			break;
	}
	syscall(SYS_exit, 0);
	return 0;
}

__attribute__((noinline)) void *strict_thread(void *arg)
{
	int s = 0;
	(void)arg;
	for (int i = 0; i < 3; i++)
		s += work(i);
	strict_rounds(s);
	return NULL;
}

__attribute__((no_instrument_function)) static void *fresh_thread(void *arg)
{
	(void)arg;
	strict_rounds(0);
	return NULL;
}

/* the next byte from a strict thread; -1 if none comes within a minute (a
 * thread the kernel killed for a system call it may not make never
 * answers: the test fails rather than hangs) */
__attribute__((no_instrument_function)) static int from_thread(char *c)
{
	struct pollfd p = { .fd = done_pipe[0], .events = POLLIN };
	if (poll(&p, 1, 60000) != 1 || read(done_pipe[0], c, 1) != 1) {
		printf("a strict thread did not answer\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int s = 0;
	if (argc > 1 && !strncmp(argv[1], "tsc", 3)) {
		/* each spin timed inside (what it measured) and around the
		 * call (the hooks' entry and exit included) */
		long long t = now_ns(), a = spin(60), a_out = now_ns() - t, b, b_out;
		for (int i = 0; i < 3; i++)
			s += work(i);
		if (!strcmp(argv[1], "tsc-raw") ? syscall(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) :
		    prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0))
			perror("prctl");
		for (int i = 0; i < 10; i++)
			s += work(i);
		t = now_ns();
		b = spin(30);
		b_out = now_ns() - t;
		printf("tsc off: %d\nspin %lld %lld\nspin %lld %lld\n", s, a, a_out, b, b_out);
	} else {
		pthread_t th[2];
		char c[4];
		int got = 0;
		how = argc > 2 ? argv[2] : "prctl";
		if (pipe(done_pipe) || pipe(go_pipe) || pthread_create(&th[0], NULL, strict_thread, NULL) ||
		    pthread_create(&th[1], NULL, fresh_thread, NULL))
			return 1;
		for (; got < 2; got++)
			if (from_thread(c + got))
				return 2;
		if (argc > 3 && !strcmp(argv[3], "signal"))
			kill(getpid(), SIGUSR1);
		if (write(go_pipe[1], "gg", 2) != 2)
			return 1;
		for (; got < 4; got++)
			if (from_thread(c + got))
				return 2;
		pthread_join(th[0], NULL);
		pthread_join(th[1], NULL);
		printf("strict threads said %d\n", c[0] + c[1] + c[2] + c[3]);
	}
	return 0;
}
