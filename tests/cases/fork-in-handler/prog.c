/* A signal handler that forks (as crash reporters and some daemons do)
 * while its thread is inside dlopen().  After dlopen, the runtime's
 * wrapper records what changed in the module map under a lock; a fork
 * from a handler interrupting it asked for that lock again, in the same
 * thread, and the program hung forever.  The handler forks 200 times,
 * each time while the main loop is inside dlopen or dlclose; each child
 * makes one traced call and leaves. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define FORKS 200
#define NOT_TRACED __attribute__((noinline, no_instrument_function))

static volatile sig_atomic_t in_dl, forks;

__attribute__((noinline)) void in_child(void) { __asm__ volatile(""); }

NOT_TRACED static void on_alarm(int sig)
{
	(void)sig;
	if (!in_dl || forks >= FORKS)
		return;
	pid_t p = fork();
	if (p == 0) {
		in_child();
		_exit(0);
	}
	if (p > 0 && waitpid(p, NULL, 0) == p)
		forks++;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	/* if it hangs, the harness's timeout kills `fntrace record`: go too */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	while (forks < FORKS) {
		in_dl = 1;
		void *h = dlopen("libm.so.6", RTLD_NOW);
		if (h)
			dlclose(h);
		in_dl = 0;
	}
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	printf("forks %d\n", (int)forks);
	return 0;
}
