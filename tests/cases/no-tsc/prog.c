/* A program that takes the cycle counter away: prctl(PR_SET_TSC,
 * PR_TSC_SIGSEGV) makes rdtsc (and the vDSO's clock_gettime, which reads
 * the TSC) fault in this thread; seccomp strict mode leaves a thread
 * read, write and _exit only.  The program times its own spins with the
 * clock_gettime system call, inside each spin and around its call, and
 * prints both. */
#include <linux/seccomp.h>
#include <pthread.h>
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

static int pipefd[2];

__attribute__((noinline)) void *strict_thread(void *arg)
{
	int s = 0;
	(void)arg;
	for (int i = 0; i < 3; i++)
		s += work(i);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) == 0) {
		for (int i = 0; i < 1000; i++)
			s += work(i);
		char c = (char)(s & 0x7f);
		if (write(pipefd[1], &c, 1) != 1)
			s = 0;
		syscall(SYS_exit, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int s = 0;
	if (argc > 1 && !strcmp(argv[1], "tsc")) {
		/* each spin timed inside (what it measured) and around the
		 * call (the hooks' entry and exit included) */
		long long t = now_ns(), a = spin(60), a_out = now_ns() - t, b, b_out;
		for (int i = 0; i < 3; i++)
			s += work(i);
		if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0))
			perror("prctl");
		for (int i = 0; i < 10; i++)
			s += work(i);
		t = now_ns();
		b = spin(30);
		b_out = now_ns() - t;
		printf("tsc off: %d\nspin %lld %lld\nspin %lld %lld\n", s, a, a_out, b, b_out);
	} else {
		pthread_t th;
		char c = 0;
		if (pipe(pipefd) || pthread_create(&th, NULL, strict_thread, NULL))
			return 1;
		if (read(pipefd[0], &c, 1) != 1)
			return 1;
		pthread_join(th, NULL);
		printf("strict thread said %d\n", c);
	}
	return 0;
}
