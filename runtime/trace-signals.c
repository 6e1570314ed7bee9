/*
 * trace-signals.c - `record --trace=off` and `record --signal SIG@ACTION`:
 * recording that starts paused, and signals that switch it on or off (as
 * fnt_enable()/fnt_disable() do) or take a snapshot.
 *
 * FNTRACE_TRACE_OFF=1 starts paused.  FNTRACE_SIGNALS is "SIG:ACTION;..."
 * with ACTION one of on, off, snapshot; the handler only stores a flag (or
 * takes the snapshot, which is async-signal-safe: ring.c), so it is safe
 * whatever the program was doing.  The program must not install its own
 * handler for those signals (record refuses fault signals, KILL and STOP).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "fntrace.h"
#include "runtime/runtime.h"

void fnt__set_enabled(int on);

static unsigned char action_of[NSIG];   /* 1 on, 2 off, 3 snapshot */
static unsigned snap_count;

/* async-signal-safe: a snapshot called PREFIX-N (N counts from 1) */
void fnt_snapshot_numbered(const char *prefix, unsigned *count)
{
	char name[40], tmp[12];
	unsigned n = __atomic_add_fetch(count, 1, __ATOMIC_RELAXED), k = 0;
	int d = 0;
	while (prefix[k] && k < 24) {
		name[k] = prefix[k];
		k++;
	}
	do
		tmp[d++] = (char)('0' + n % 10);
	while ((n /= 10) && d < 10);
	while (d)
		name[k++] = tmp[--d];
	name[k] = 0;
	fnt_snapshot_write(name);
}

static void on_trace_signal(int sig)
{
	int saved = errno;
	switch (sig > 0 && sig < NSIG ? action_of[sig] : 0) {
	case 1: fnt__set_enabled(1); break;
	case 2: fnt__set_enabled(0); break;
	case 3: fnt_snapshot_numbered("signal-", &snap_count); break;
	default:
		break;
	}
	errno = saved;
}

void fnt_trace_signals_init(void)
{
	const char *off = getenv(FNTRACE_ENV_TRACE_OFF), *env = getenv(FNTRACE_ENV_SIGNALS);
	if (off && *off && strcmp(off, "0"))
		fnt__set_enabled(0);
	if (!env || !*env)
		return;
	for (const char *p = env; *p;) {
		char *end;
		long sig = strtol(p, &end, 10);
		if (*end != ':')
			break;
		const char *a = end + 1, *semi = strchr(a, ';');
		size_t len = semi ? (size_t)(semi - a) : strlen(a);
		int act = len == 2 && !strncmp(a, "on", 2) ? 1 : len == 3 && !strncmp(a, "off", 3) ? 2 :
			  len == 8 && !strncmp(a, "snapshot", 8) ? 3 : 0;
		if (act && sig > 0 && sig < NSIG && sig != SIGSEGV && sig != SIGBUS && sig != SIGILL &&
		    sig != SIGFPE && sig != SIGKILL && sig != SIGSTOP) {
			struct sigaction sa;
			memset(&sa, 0, sizeof(sa));
			action_of[sig] = (unsigned char)act;
			sa.sa_handler = on_trace_signal;
			sa.sa_flags = SA_RESTART;
			sigemptyset(&sa.sa_mask);
			if (!sigaction((int)sig, &sa, NULL))
				fnt_own_signal((int)sig);
		}
		p = semi ? semi + 1 : a + len;
	}
}
