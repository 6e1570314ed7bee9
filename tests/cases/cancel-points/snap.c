/* A snapshot is no cancellation point: a thread with a deferred cancel
 * pending takes a snapshot with a mutex held, and is cancelled only where
 * it calls pthread_testcancel, the mutex released.  The snapshot comes from
 * a traced call with a trigger (`-T snap_here@snapshot`), from the API
 * (fnt_snapshot) or from the snapshot signal, which the thread sends
 * itself (delivered before pthread_kill returns).  The snapshot's open,
 * pwrite and close took the cancel: the thread was cancelled with the
 * mutex held, and the snapshot lock stayed taken (no later snapshot).
 * usage: snap trigger|api|signal */
#define FNT_WEAK
#include <fntrace.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int go, past, api_ret, sink, round_;
static const char *mode;

__attribute__((noinline)) void snap_here(int i) { sink += i; }

__attribute__((noinline)) void *thr(void *a)
{
	(void)a;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	while (!go)
		;
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);    /* deferred: pending from here on */
	pthread_mutex_lock(&m);
	if (!strcmp(mode, "trigger"))
		snap_here(1);
	else if (!strcmp(mode, "api"))
		api_ret = fnt_snapshot(round_ ? "api-2" : "api-1");
	else
		pthread_kill(pthread_self(), SIGUSR2);
	pthread_mutex_unlock(&m);
	past = 1;
	pthread_testcancel();
	return NULL;
}

int main(int argc, char **argv)
{
	mode = argc > 1 ? argv[1] : "trigger";
	alarm(20);
	for (int k = 0; k < 2; k++) {
		pthread_t t;
		void *r;
		go = past = 0;
		round_ = k;
		pthread_create(&t, 0, thr, 0);
		pthread_cancel(t);
		go = 1;
		pthread_join(t, &r);
		int held = pthread_mutex_trylock(&m) != 0;
		if (!held)
			pthread_mutex_unlock(&m);
		printf("round %d: %s, mutex %s, %s", k, past ? "past the snapshot" : "stopped in it",
		       held ? "held" : "free", r == PTHREAD_CANCELED ? "cancelled" : "returned");
		if (past && !strcmp(mode, "api"))
			printf(", fnt_snapshot %d", api_ret);
		printf("\n");
		fflush(stdout);
		if (held)
			return 1;       /* (the next round's thread would wait for it for good) */
	}
	return 0;
}
