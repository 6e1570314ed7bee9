/* The first CLOCK_REALTIME read of the process (the runtime's clock sample
 * at its start) comes 5 ms late, as when the scheduler takes the CPU away
 * right there.  Linked into prog-late before libc, so that the runtime's
 * clock_gettime is this one (and the tool, not preloaded, never sees it). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

static int calls;

int clock_gettime(clockid_t c, struct timespec *ts)
{
	static int (*next)(clockid_t, struct timespec *);
	if (!next)
		next = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	if (c == CLOCK_REALTIME && calls++ == 0) {
		struct timespec d = { 0, 5 * 1000 * 1000 };
		nanosleep(&d, 0);
	}
	return next(c, ts);
}
