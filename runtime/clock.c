/*
 * clock.c - the trace clock: the TSC or CLOCK_MONOTONIC (chosen at start-up),
 * the samples that calibrate ticks against nanoseconds, and the clock when
 * the program takes the cycle counter away.
 *
 * prctl(PR_SET_TSC, PR_TSC_SIGSEGV) makes rdtsc fault in the calling thread
 * and in every thread it starts later.  The vDSO's clock_gettime reads the
 * TSC too (when the kernel's clocksource is the TSC), so it faults as well,
 * even with --clock monotonic.  The prctl wrapper (filter.c), and the
 * syscall() wrapper for SYS_prctl (clone.c), call fnt_clock_prctl first; from then on the runtime reads CLOCK_MONOTONIC with
 * the system call, and, when the trace is in TSC ticks, converts it to ticks
 * on the line of the calibration so far: the file keeps one time base and
 * the reader needs nothing new.  The switch is for the whole process (a
 * plain store the hot path reads: it only ever goes from TSC to the
 * system call), and it stays after PR_TSC_ENABLE.
 *
 * Seccomp strict mode (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT), or the
 * same through syscall(SYS_prctl) or syscall(SYS_seccomp), which the
 * syscall() wrapper in clone.c passes here) leaves the thread read,
 * write, _exit and sigreturn: no clock of any kind, no new chunk, no mmap.  That thread stops recording at the switch; each event it
 * makes afterwards is counted in the header (FNT_RES_LOST_NOCLOCK) by the
 * hooks' slow path with one atomic add on the mapped header, no system
 * call.  Other threads go on as before.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "fntrace.h"
#include "runtime/runtime-internal.h"

int fnt_clock_raw FNT_HIDDEN;                    /* CLOCK_MONOTONIC by system call */
__thread int fnt_no_clock FNT_HIDDEN __attribute__((tls_model("initial-exec")));

static int emulated;                  /* the file is in TSC ticks: convert */
static uint64_t sw_ticks, sw_mono;    /* the last TSC sample, at the switch */
static double ticks_per_ns;

uint64_t fnt_mono_ns(void)
{
	struct timespec ts;
	if (unlikely(fnt_clock_raw))     /* the vDSO would run rdtsc (clock.c) */
		return fnt_clock_raw_ns(CLOCK_MONOTONIC);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t real_ns(void)
{
	struct timespec ts;
	if (unlikely(fnt_clock_raw))
		return fnt_clock_raw_ns(CLOCK_REALTIME);
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One clock sample: ticks read on both sides of CLOCK_MONOTONIC, averaged;
 * the tightest of a few such windows, so that a sample an interrupt or the
 * scheduler cut in two is never used (the conversion of the first seconds
 * rests on samples 1 ms apart: 10 us off in one was 1 %).  CLOCK_REALTIME
 * is read inside the same window, right after CLOCK_MONOTONIC: read after
 * the loop, a preemption between the two moved every wall time of the
 * trace late by its length. */
void clock_sample(uint64_t *ticks, uint64_t *mono, uint64_t *real)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t a = fnt_now(), m = fnt_mono_ns(), b = fnt_now();
		uint64_t r = real ? real_ns() : 0, c = real ? fnt_now() : b;
		if (c - a < best) {
			best = c - a;
			*ticks = a + (b - a) / 2;
			*mono = m;
			if (real)
				*real = r;
		}
		if (!fnt_use_tsc && !real)
			break;          /* ticks are CLOCK_MONOTONIC ns: one read is exact */
	}
}

/* The TSC is used when the kernel itself uses it as its clocksource (it then
 * is invariant and synchronised across CPUs); FNTRACE_CLOCK overrides. */
int tsc_usable(void)
{
	const char *env = getenv(FNTRACE_ENV_CLOCK);
	char buf[32] = "";
	int fd;
	ssize_t n;

	if (env && !strcmp(env, "tsc"))
		return 1;
	if (env && !strcmp(env, "monotonic"))
		return 0;
	fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= 3 && !strncmp(buf, "tsc", 3);
}

uint64_t fnt_clock_raw_ns(int clock)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* fnt_now() without the TSC: ns, or TSC ticks made from ns after a switch */
uint64_t fnt_clock_fallback(void)
{
	uint64_t ns = fnt_mono_ns();
	if (!__atomic_load_n(&emulated, __ATOMIC_ACQUIRE))
		return ns;
	return sw_ticks + (uint64_t)((double)(int64_t)(ns - sw_mono) * ticks_per_ns);
}

/* PR_SET_TSC PR_TSC_SIGSEGV is about to take effect: one last TSC sample,
 * the rate from the calibration to now, then no TSC and no vDSO clock. */
static void tsc_off(void)
{
	struct fnt_file_header *h = fnt_trace_header();
	if (fnt_use_tsc && h) {
		clock_sample(&sw_ticks, &sw_mono, NULL);      /* the TSC still runs here */
		/* the longer baseline when there is one (a 1 ms calibration is
		 * worth less than the whole run so far) */
		if (sw_mono > h->cal0_mono + 50000000 && sw_ticks > h->cal0_ticks)
			ticks_per_ns = (double)(sw_ticks - h->cal0_ticks) / (double)(sw_mono - h->cal0_mono);
		else if (h->cal1_mono > h->cal0_mono)
			ticks_per_ns = (double)(h->cal1_ticks - h->cal0_ticks) / (double)(h->cal1_mono - h->cal0_mono);
		else
			ticks_per_ns = 1.0;
		__atomic_store_n(&emulated, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&fnt_clock_raw, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&fnt_use_tsc, 0, __ATOMIC_RELEASE);
	__atomic_fetch_or(&fnt_fast_off, FNT_FAST_NO_TSC, __ATOMIC_RELEASE);
}

/* This thread is about to lose every system call but read, write, _exit
 * and sigreturn: send its events to the slow path (no chunk room), which
 * counts them; every other path of the hooks checks fnt_no_clock before a
 * system call (coro.c, fentry.c, filter.c, patch.c).  Its thread id is
 * kept for the patch switch's handshake (patch.c), and the signals whose
 * handlers the runtime installed (--patch-signal, --snapshot-signal,
 * --signal), whose work is system calls, are blocked in it: another thread
 * takes them. */
static sigset_t strict_was;

static void thread_stop(void)
{
	struct fnt_thread *t = &fnt_self;
	if (!t->tid)
		t->tid = fnt_gettid();
	fnt_own_signals_block(&strict_was);
	fnt_no_clock = 1;
	t->limit = NULL;
}

void fnt_clock_prctl(int option, unsigned long arg)
{
	if (option == PR_SET_TSC && arg == PR_TSC_SIGSEGV)
		tsc_off();
	else if (option == PR_SET_SECCOMP && arg == SECCOMP_MODE_STRICT)
		thread_stop();
}

/* ...and after it: strict mode refused (EINVAL, EACCES), the thread records
 * again, as before (the TSC stays off: harmless) */
void fnt_clock_prctl_done(int option, unsigned long arg, long ret)
{
	struct fnt_thread *t = &fnt_self;
	if (ret == 0 || option != PR_SET_SECCOMP || arg != SECCOMP_MODE_STRICT || !fnt_no_clock)
		return;
	fnt_no_clock = 0;
	pthread_sigmask(SIG_SETMASK, &strict_was, NULL);
	if (t->chunk && t->state == FNT_T_ACTIVE)
		t->limit = t->chunk + chunk_size - FNT_CHUNK_SLACK;
}
