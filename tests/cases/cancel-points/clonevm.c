/* A raw clone(CLONE_VM) child without CLONE_SETTLS runs on its parent
 * thread's TLS, so on its parent's cancellation state too.  The child
 * takes snapshots (fnt_snapshot) while the parent turns its own
 * cancellation off and back on, and checks what pthread_setcancelstate
 * tells it: the state must always be the one it set.  A snapshot turns
 * cancellation off around its system calls, but not in such a child
 * (fnt_cancel_off): there it turned the parent's off (the parent found it
 * off where it had left it on) and back on (the parent found it on inside
 * its section with cancellation off).  No cancel is ever sent: the child
 * would take it (its cancellation points look at the parent's state). */
#define _GNU_SOURCE
#define FNT_WEAK
#include <fntrace.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#define MIN_SNAPS 200
#define MIN_TOGGLES 200000
static char stack[256 << 10] __attribute__((aligned(16)));
static volatile int child_done, snaps, snap_fails;
static volatile long toggles;

__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }

/* no libc function that needs TLS of its own (errno is the parent's) */
__attribute__((noinline)) int child_fn(void *arg)
{
	(void)arg;
	/* until the parent has toggled its state many times while snapshots
	 * were being written (however the two are scheduled) */
	while (snaps < MIN_SNAPS || toggles < MIN_TOGGLES) {
		if (fnt_snapshot("child"))
			snap_fails++;
		snaps++;
	}
	child_done = 1;
	return 0;
}

int main(void)
{
	int st, was, now;
	long found_off = 0, found_on = 0;
	pid_t pid;

	in_parent(0);
	if (!fnt_snapshot("parent-before")) /* (untraced: -1) */
		printf("traced\n");
	pid = clone(child_fn, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL);
	if (pid < 0)
		return 10;
	while (!child_done) {
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &was);
		found_off += was != PTHREAD_CANCEL_ENABLE;      /* left on */
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &now);
		found_on += now != PTHREAD_CANCEL_DISABLE;      /* set off just before */
		toggles++;
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 11;
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &was);
	in_parent(1);
	printf("%s snapshots, %s failed\n", snaps >= MIN_SNAPS ? "enough" : "too few", snap_fails ? "some" : "none");
	printf("cancellation found off %ld times, on %ld times; at the end %s\n", found_off, found_on,
	       was == PTHREAD_CANCEL_ENABLE ? "on" : "off");
	return 0;
}
