/*
 * patch.c - -fpatchable-function-entry=N (N >= 5, M = 0): turn the NOP pad
 * at the start of the selected functions into a call to __fentry__, so that
 * gcc and clang builds with patchable entries are traced exactly like
 * -pg -mfentry ones, and the functions left alone cost nothing.
 *
 * The pads are listed in the module's __patchable_function_entries section
 * (allocated, so read from memory after relocation).  Which functions are
 * patched: the FNTRACE_PATCH globs (`record --patch`) when given, every
 * function otherwise (plus, always, the ones an -A/-R spec names).  Patching
 * happens when the module is first seen: at start-up, from the runtime's
 * constructor, before main and before any thread of the program exists;
 * and for a dlopen'ed module right after dlopen returns, before the caller
 * can call into it (another thread already running the module's code while
 * it is patched is not supported).  The call cannot reach libfntrace.so
 * with a rel32 from a PIE, so it goes to a 14-byte stub (jmp *__fentry__)
 * in a page mapped within 2 GB of the module.
 */
#ifndef FNT_STATIC_ARCHIVE
#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <ucontext.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fntrace.h"
#include "runtime/runtime.h"

void __fentry__(void);

#include "symbols/cxxname.h"

/* the length of the NOP instruction at p, or 0: 90, 66 90, and 0f 1f /0
 * with its ModRM forms, after 66 or 2e prefixes (what gcc and clang put in
 * a patchable entry); it reads no byte from p + lim on (the function's
 * end: what follows may be a gap between segments, not mapped) */
static unsigned nop_len(const uint8_t *p, unsigned lim)
{
	unsigned n = 0;
	while (n < 8 && n < lim && (p[n] == 0x66 || p[n] == 0x2e))
		n++;
	if (n < lim && p[n] == 0x90)
		return n + 1;
	if (n + 3 > lim || p[n] != 0x0f || p[n + 1] != 0x1f || (p[n + 2] & 0x38))
		return 0;
	unsigned modrm = p[n + 2], mod = modrm >> 6, rm = modrm & 7;
	n += 3;
	if (mod != 3) {
		if (rm == 4) {
			if (n >= lim)
				return 0;
			n += 1 + (mod == 0 && (p[n] & 7) == 5) * 4;     /* a SIB byte; base 5: disp32 */
		} else if (mod == 0 && rm == 5) {
			n += 4;                                         /* rip + disp32 */
		}
		n += (mod == 1) + (mod == 2) * 4;
	}
	return n <= lim ? n : 0;
}

/* The NOPs at a patchable entry: how many bytes of whole NOP instructions
 * it takes to hold the 5-byte call (0: fewer than 5 bytes of them).  *kind:
 * 1 if they are five 1-byte NOPs (gcc) or one 5-byte NOP (clang), which
 * the switch protocol handles as they are; 0 if they are rewritten first */
static unsigned pad_len(const uint8_t *p, unsigned lim, int *kind)
{
	unsigned len = 0, k, n = 0, ones = 1;
	while (len < 5 && (k = nop_len(p + len, lim - len))) {
		ones &= k == 1;
		len += k;
		n++;
	}
	*kind = len == 5 && (ones || n == 1);
	return len >= 5 ? len : 0;
}

/* the same NOPs as one 5-byte NOP then NOPs to len: a site the switch can
 * write, since no thread can be inside its first instruction */
static void pad_normal(uint8_t *out, unsigned len)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const uint8_t fill[5][5] = {
		{ 0x90 }, { 0x66, 0x90 }, { 0x0f, 0x1f, 0x00 }, { 0x0f, 0x1f, 0x40, 0x00 },
		{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	};
	memcpy(out, nop5, 5);
	for (unsigned at = 5; at < len;) {
		unsigned k = len - at > 5 ? 5 : len - at;
		memcpy(out + at, fill[k - 1], k);
		at += k;
	}
}

static int is_endbr64(const uint8_t *p)
{
	return p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa;
}

static int cmp_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return x < y ? -1 : x > y;
}

/* size bytes, read-write, within rel32 reach of [lo, hi); fnt_near_seal
 * makes them read-execute once written */
uint8_t *fnt_near_alloc(uintptr_t lo, uintptr_t hi, size_t size)
{
	long pg = sysconf(_SC_PAGESIZE);
	size = (size + (size_t)pg - 1) & ~(size_t)(pg - 1);
	for (uintptr_t k = 1; k < 4096; k++) {
		uintptr_t want = ((lo & ~(uintptr_t)(pg - 1)) - k * 0x100000u - size);
		if (want > lo || hi - want > 0x7fff0000u)
			break;
		void *m = mmap((void *)want, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m == MAP_FAILED)
			continue;
		if ((uintptr_t)m != want) {
			munmap(m, size);
			continue;
		}
		return m;
	}
	return NULL;
}

int fnt_near_seal(void *p, size_t size)
{
	long pg = sysconf(_SC_PAGESIZE);
	size = (size + (size_t)pg - 1) & ~(size_t)(pg - 1);
	if (!mprotect(p, size, PROT_READ | PROT_EXEC))
		return 0;
	munmap(p, size);
	return -1;
}

/* a page for the stub (jmp *__fentry__) within rel32 reach of [lo, hi) */
static uint8_t *stub_near(uintptr_t lo, uintptr_t hi)
{
	uint8_t *s = fnt_near_alloc(lo, hi, 14);
	if (!s)
		return NULL;
	uintptr_t target = (uintptr_t)__fentry__;
	s[0] = 0xff;    /* jmp *0(%rip) */
	s[1] = 0x25;
	memset(s + 2, 0, 4);
	memcpy(s + 6, &target, 8);
	return fnt_near_seal(s, 14) ? NULL : s;
}

/* The -P globs (FNTRACE_PATCH, "a*;b"), split once and kept: the module
 * scan (patch.c, prologue.c, libcall.c) asks for them at every module */
int fnt_patch_globs(char ***globs)
{
	static char *text, *list[64];
	static int n = -1;
	if (n < 0) {
		const char *env = getenv(FNTRACE_ENV_PATCH);
		n = 0;
		if (env && *env && (text = strdup(env))) {
			char *save = NULL;
			for (char *tok = strtok_r(text, ";", &save); tok && n < 64; tok = strtok_r(NULL, ";", &save))
				list[n++] = tok;
		}
	}
	*globs = list;
	return n;
}

/* FUNC globs of -P: no glob selects everything; a C++ name matches in
 * every form the tool shows (as the record-time filters do) */
static int patch_glob_match1(const char *name, char **globs, int n_globs)
{
	static const enum cxxname_style styles[] = { CXXNAME_SHORT, CXXNAME_SIG, CXXNAME_SIMPLE };
	for (int i = 0; i < n_globs; i++)
		if (!fnmatch(globs[i], name, 0))
			return 1;
	for (size_t k = 0; k < sizeof(styles) / sizeof(*styles) && name[0] == '_' && name[1] == 'Z'; k++) {
		char *d = cxxname_demangle(name, styles[k]);
		int hit = 0;
		for (int i = 0; d && i < n_globs && !hit; i++)
			hit = !fnmatch(globs[i], d, 0) || !strcmp(globs[i], d);
		free(d);
		if (hit)
			return 1;
	}
	return 0;
}

int fnt_patch_glob_match(const char *name, char **globs, int n_globs)
{
	if (!n_globs)
		return 1;
	if (patch_glob_match1(name, globs, n_globs))
		return 1;
	/* a clone of a selected function (f.constprop.0) is selected too */
	char *base = cxxname_unclone(name);
	int hit = base && patch_glob_match1(base, globs, n_globs);
	free(base);
	return hit;
}

/*
 * Switching the pads later (record --patch-signal, fnt_patch()).
 *
 * Every selected pad is kept in `sites` (sorted, published whole: a new
 * module makes a new array, the old one is never freed, so the SIGTRAP
 * handler can read it at any time without a lock).  A switch rewrites all
 * the pads at once while other threads may run them, with int3:
 *   1. byte 0 of every pad becomes 0xCC; all cores are serialised;
 *   2. NOP -> call only, if a pad is five 1-byte NOPs (gcc): every other
 *      thread is stopped by a SIGTRAP sent to it and, if it was interrupted
 *      inside a pad (after its first NOP), moved to the pad's end; no thread
 *      can enter a pad again since byte 0 traps;
 *   3. bytes 1-4 are written; serialise;
 *   4. byte 0 is written; serialise.
 * A thread that reaches a pad meanwhile executes the int3: the handler
 * moves it past the pad, which is what the NOPs do (that call is not
 * traced).  Other SIGTRAPs go to the program's own handler (or the default
 * action).  The switch runs under `busy`, an atomic flag taken with a
 * try-lock by the signal handler (which, when busy, only leaves its request
 * in `want_on` for the holder to carry out) and by spinning elsewhere; it
 * uses only system calls (mprotect, membarrier, tgkill, getdents64).
 */
#define site fnt_patch_site     /* runtime.h: a pad, or a moved prologue (prologue.c) */
struct site_set {
	size_t n;
	struct site s[];
};

static struct site_set *sites;       /* published with release stores */
static int busy, want_on = -1, is_on, parking, patch_sig;
/* the hold protocol (prologue sites): the park generation whose threads wait
 * in the handler until `released` reaches it */
static int hold_gen, released;
#define PARK_MAX 4096
#define PARK_CODE (-60)           /* si_code of a park request (< 0: sent by us) */
#define PARK_MAGIC 0x66707472
static pid_t park_tid[PARK_MAX];
static int park_ack_gen[PARK_MAX], park_n, park_gen;
static unsigned long patch_errors;
static int sync_core_ok;
static uint8_t *sync_page;
static struct sigaction trap_old;
static volatile int trap_ours;

#define MB_SYNC_CORE 32           /* MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE */
#define MB_REGISTER_SYNC_CORE 64  /* MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE */

static int site_cmp(const void *a, const void *b)
{
	uintptr_t x = ((const struct site *)a)->at, y = ((const struct site *)b)->at;
	return x < y ? -1 : x > y;
}

/* the site whose pad holds addr (at <= addr < at + 5), or NULL */
static const struct site *site_at(uintptr_t addr)
{
	struct site_set *set = __atomic_load_n(&sites, __ATOMIC_ACQUIRE);
	if (!set)
		return NULL;
	size_t lo = 0, hi = set->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (set->s[mid].at <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - set->s[lo - 1].at >= set->s[lo - 1].len)
		return NULL;
	return &set->s[lo - 1];
}

/* where a thread stopped at ip inside site s (past its first byte) goes on:
 * past a pad's NOPs; to the same instruction among a prologue's moved ones */
static uintptr_t site_interior(const struct site *s, uintptr_t ip)
{
	if (!s->nb)
		return s->resume;
	for (unsigned i = 0; i < s->nb; i++)
		if (s->at + s->from[i] == ip)
			return s->resume + s->to[i];
	return ip;
}

/* make every core that runs one of our threads see the new code */
static void sync_cores(void)
{
	if (sync_core_ok && !syscall(SYS_membarrier, MB_SYNC_CORE, 0, 0))
		return;
	/* an mprotect that takes a right away flushes the TLBs of every core
	 * running this mm by IPI; the interrupt serialises each of them */
	if (sync_page) {
		long pg = sysconf(_SC_PAGESIZE);
		__atomic_store_n(sync_page, 1, __ATOMIC_RELAXED);
		mprotect(sync_page, (size_t)pg, PROT_READ);
		mprotect(sync_page, (size_t)pg, PROT_READ | PROT_WRITE);
	}
}

/* this thread got out of every pad interior for the current park */
/* A thread in seccomp strict mode may make no system call but read, write,
 * _exit and sigreturn (clock.c): it answers with its thread id as kept
 * when it entered that mode, and the pid of its trace file. */
static pid_t self_tid(void)
{
	return fnt_no_clock ? (pid_t)fnt_self.tid : (pid_t)fnt_gettid();
}

static pid_t self_pid(void)
{
	return fnt_no_clock ? (pid_t)fnt_trace_pid() : getpid();
}

static void park_ack(void)
{
	int gen = __atomic_load_n(&park_gen, __ATOMIC_ACQUIRE), n = __atomic_load_n(&park_n, __ATOMIC_ACQUIRE);
	pid_t self = self_tid();
	for (int i = 0; i < n; i++)
		if (park_tid[i] == self)
			__atomic_store_n(&park_ack_gen[i], gen, __ATOMIC_RELEASE);
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	const struct site *s;
	if (si->si_code == PARK_CODE && si->si_pid == self_pid() && si->si_value.sival_int == PARK_MAGIC) {
		int hold = __atomic_load_n(&hold_gen, __ATOMIC_ACQUIRE);
		if (hold && hold == __atomic_load_n(&park_gen, __ATOMIC_ACQUIRE)) {
			/* stop here while the sites are rewritten (no code of theirs
			 * runs meanwhile: no int3 needed), then step out of any
			 * site's interior as the new bytes require */
			if (__atomic_load_n(&parking, __ATOMIC_ACQUIRE))
				park_ack();
			struct timespec t0, now, nap = { 0, 20000 };
			if (!fnt_no_clock)
				clock_gettime(CLOCK_MONOTONIC, &t0);
			/* (a later switch may have stopped this thread again inside
			 * this wait, SA_NODEFER, and released it: generations grow) */
			for (unsigned long spins = 0; (int)(__atomic_load_n(&released, __ATOMIC_ACQUIRE) - hold) < 0;) {
				if (fnt_no_clock) {      /* no nanosleep, no clock: a bounded spin */
					__builtin_ia32_pause();
					if (++spins > 1000000000ul)
						break;
					continue;
				}
				nanosleep(&nap, NULL);
				clock_gettime(CLOCK_MONOTONIC, &now);
				if (now.tv_sec - t0.tv_sec > 10)
					break;      /* never hang the host (the switcher cannot stall this long) */
			}
			if ((s = site_at(ip)) && ip != s->at && *(const uint8_t *)s->at == s->call[0])
				uc->uc_mcontext.gregs[REG_RIP] = (greg_t)site_interior(s, ip);
			return;
		}
		/* a switch stops this thread: never leave it inside a pad (a
		 * late one, after its switch, finds NOPs or a call: harmless) */
		if ((s = site_at(ip)) && ip != s->at)
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)site_interior(s, ip);
		if (__atomic_load_n(&parking, __ATOMIC_ACQUIRE))
			park_ack();
		return;
	}
	if (ip && (s = site_at(ip - 1)) && s->at == ip - 1) {
		/* the int3 a switch put at a pad: skip the pad.  A park request
		 * sent meanwhile may have merged with this SIGTRAP: it is met
		 * too, the thread leaves no pad interior */
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)s->resume;
		if (__atomic_load_n(&parking, __ATOMIC_ACQUIRE))
			park_ack();
		return;
	}
	/* not ours */
	if (trap_old.sa_flags & SA_SIGINFO) {
		if (trap_old.sa_sigaction)
			trap_old.sa_sigaction(sig, si, ucv);
	} else if (trap_old.sa_handler == SIG_IGN) {
		return;
	} else if (trap_old.sa_handler != SIG_DFL) {
		trap_old.sa_handler(sig);
	} else {
		/* the default action, once this handler returns */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGTRAP, &dfl, NULL);
		trap_ours = 0;
		syscall(SYS_tgkill, getpid(), fnt_gettid(), SIGTRAP);
	}
}

/* (re)install the SIGTRAP handler if the program replaced it */
static int trap_install(void)
{
	struct sigaction cur, sa;
	if (sigaction(SIGTRAP, NULL, &cur))
		return -1;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_trap)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	/* SA_NODEFER: a thread inside this handler does not look like one
	 * that blocks SIGTRAP (list_threads) */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	trap_old = cur;
	if (sigaction(SIGTRAP, &sa, NULL))
		return -1;
	trap_ours = 1;
	return 0;
}

/* the other threads into park_tid/park_n; -1 when too many, or when one
 * blocks SIGTRAP: the int3 of a switch would kill the process there (the
 * kernel resets a blocked SIGTRAP to its default action); -2 when the only
 * ones that block it are not asleep: running, waiting for a CPU or for
 * the kernel (see list_threads) */
static int list_threads_once(void)
{
	char buf[4096];
	pid_t self = (pid_t)fnt_gettid();
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0, ok = 1;
	if (fd < 0)
		return -1;
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (got <= 0)
			break;
		for (long off = 0; off < got;) {
			const char *name = buf + off + 19;    /* d_ino 8, d_off 8, d_reclen 2, d_type 1 */
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, 2);
			off += reclen;
			pid_t tid = (pid_t)strtol(name, NULL, 10);   /* no locale, no malloc */
			if (tid <= 0 || tid == self)
				continue;
			if (n == PARK_MAX) {
				ok = 0;
				break;
			}
			park_tid[n++] = tid;
		}
	}
	close(fd);
	for (int i = 0; i < n && ok > 0; i++) {
		char path[64], st[2048];
		/* "/proc/self/task/TID/status", without snprintf */
		char num[16], *q = num + sizeof(num);
		*--q = 0;
		for (pid_t v = park_tid[i]; v; v /= 10)
			*--q = (char)('0' + v % 10);
		strcpy(path, "/proc/self/task/");
		strcat(path, q);
		strcat(path, "/status");
		int sfd = open(path, O_RDONLY | O_CLOEXEC);
		if (sfd < 0)
			continue;          /* gone */
		ssize_t len = read(sfd, st, sizeof(st) - 1);
		close(sfd);
		if (len <= 0)
			continue;
		st[len] = 0;
		const char *blk = strstr(st, "SigBlk:"), *state = strstr(st, "State:\t");
		if (blk && (strtoull(blk + 7, NULL, 16) & (1ull << (SIGTRAP - 1))))
			ok = state && state[7] != 'S' ? -1 : 0;   /* (-1: not asleep; looks on) */
	}
	__atomic_store_n(&park_n, ok > 0 ? n : 0, __ATOMIC_RELEASE);
	return ok > 0 ? 0 : ok < 0 ? -2 : -1;
}

/* A thread can block SIGTRAP for a moment: in a handler of the program's
 * whose mask has it, or a new thread, which glibc starts with every
 * signal blocked until its start-up sets its mask.  On a loaded machine a
 * new thread can wait 20 to 50 ms for a CPU (fnt_patch right after
 * pthread_create failed then: patch-prologue-threads, 15 of 576 loaded
 * runs).  So look again: 20 times, a millisecond apart, and for as long as
 * 500 ms while every thread that blocks it is running or waiting for a
 * CPU (or in the kernel: a page fault waiting for a lock).  One asleep
 * with it blocked (a sigwait thread) is not waited for longer. */
static int list_threads(void)
{
	uint64_t t0 = 0;
	for (int asleep = 0;;) {
		int r = list_threads_once();
		if (!r)
			return 0;
		if (r == -2 && !fnt_no_clock) {
			uint64_t now = fnt_mono_ns();
			if (!t0)
				t0 = now;
			if (now - t0 > 500000000ull)
				return -1;
		} else if (++asleep > 20) {
			return -1;
		}
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

/* stop every other thread (list_threads) once through SIGTRAP (see
 * on_trap); 0 when all did */
static int park_threads(int hold)
{
	pid_t pid = getpid();
	int n = __atomic_load_n(&park_n, __ATOMIC_ACQUIRE), ok;
	int gen = __atomic_add_fetch(&park_gen, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&hold_gen, hold ? gen : 0, __ATOMIC_RELEASE);
	__atomic_store_n(&parking, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < n; i++) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGTRAP;
		si.si_code = PARK_CODE;
		si.si_pid = pid;
		si.si_uid = getuid();
		si.si_value.sival_int = PARK_MAGIC;
		if (syscall(SYS_rt_tgsigqueueinfo, pid, park_tid[i], SIGTRAP, &si))
			__atomic_store_n(&park_ack_gen[i], gen, __ATOMIC_RELEASE);   /* gone */
	}
	/* wait up to ~2 s for every thread */
	ok = 0;
	for (int round = 0; round < 20000 && !ok; round++) {
		ok = 1;
		for (int i = 0; i < n && ok; i++)
			ok = __atomic_load_n(&park_ack_gen[i], __ATOMIC_ACQUIRE) == gen;
		if (!ok) {
			/* a thread that exited meanwhile never answers */
			for (int i = 0; i < n; i++)
				if (__atomic_load_n(&park_ack_gen[i], __ATOMIC_ACQUIRE) != gen &&
				    syscall(SYS_tgkill, pid, park_tid[i], 0))
					__atomic_store_n(&park_ack_gen[i], gen, __ATOMIC_RELEASE);
			if (round < 100) {
				sched_yield();
			} else {
				struct timespec ts = { 0, 100000 };
				nanosleep(&ts, NULL);
			}
		}
	}
	__atomic_store_n(&parking, 0, __ATOMIC_RELEASE);
	return ok ? 0 : -1;
}

/* every page that holds one of set's sites (sorted) to prot; 0, or -1 when
 * some mprotect failed */
static int write_range(const struct site_set *set, int prot)
{
	int failed = 0;
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t r0 = 0, r1 = 0;
	for (size_t i = 0; i <= set->n; i++) {
		uintptr_t p0 = 0, p1 = 0;
		if (i < set->n && !set->s[i].len)
			continue;
		if (i < set->n) {
			p0 = set->s[i].at & ~(uintptr_t)(pg - 1);
			p1 = (set->s[i].at + 5 + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1);
			if (r1 && p0 <= r1) {
				if (p1 > r1)
					r1 = p1;
				continue;
			}
		}
		if (r1 && mprotect((void *)r0, r1 - r0, prot)) {
			patch_errors++;
			failed = -1;
		}
		r0 = p0;
		r1 = p1;
	}
	return failed;
}

/* Prologue sites (prologue.c) whose moved bytes hold several instructions
 * cannot use the int3 protocol below: a thread found just past a 1-byte
 * first instruction (push %rbp) may have run it, or the int3 that replaced
 * it (a park request merges with that SIGTRAP), and the two need different
 * places to go on.  So every other thread is stopped in the handler, the
 * sites are rewritten while no code runs, and each thread then steps out of
 * any interior it was stopped in (on_trap).  Write access is open. */
static int switch_held(const struct site_set *set, int on, ucontext_t *self_uc)
{
	int ok = !park_threads(1);
	if (ok) {
		for (size_t i = 0; i < set->n; i++)
			if (set->s[i].len)
				memcpy((void *)set->s[i].at, on ? set->s[i].call : set->s[i].orig, 5);
		sync_cores();
		if (on && self_uc) {
			uintptr_t ip = (uintptr_t)self_uc->uc_mcontext.gregs[REG_RIP];
			const struct site *s = site_at(ip);
			if (s && ip != s->at)
				self_uc->uc_mcontext.gregs[REG_RIP] = (greg_t)site_interior(s, ip);
		}
	}
	/* (given up: nothing was written) */
	__atomic_store_n(&released, __atomic_load_n(&hold_gen, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
	__atomic_store_n(&hold_gen, 0, __ATOMIC_RELEASE);
	write_range(set, PROT_READ | PROT_EXEC);
	return ok ? 0 : -1;
}

/* with busy held: every pad to the call (on) or back to its NOPs */
static int patch_switch(int on, ucontext_t *self_uc)
{
	struct site_set *set = __atomic_load_n(&sites, __ATOMIC_ACQUIRE);
	int multi = 0;
	if (!set || !set->n)
		return 0;       /* nothing to write yet: modules loaded later follow the new state */
	if (trap_install() || list_threads())
		return -1;
	write_range(set, PROT_READ | PROT_WRITE | PROT_EXEC);
	for (size_t i = 0; i < set->n; i++)
		if (set->s[i].nb && set->s[i].len)
			return switch_held(set, on, self_uc);
	for (size_t i = 0; i < set->n; i++) {
		if (!set->s[i].len)
			continue;
		__atomic_store_n((uint8_t *)set->s[i].at, 0xcc, __ATOMIC_RELEASE);
		multi |= set->s[i].orig[0] == 0x90 || set->s[i].nb;
	}
	sync_cores();
	if (on && multi) {
		/* this thread too, when a signal interrupted it inside a pad */
		if (self_uc) {
			uintptr_t ip = (uintptr_t)self_uc->uc_mcontext.gregs[REG_RIP];
			const struct site *s = site_at(ip);
			if (s && ip != s->at)
				self_uc->uc_mcontext.gregs[REG_RIP] = (greg_t)site_interior(s, ip);
		}
		if (park_threads(0)) {
			/* give up: only byte 0 changed, put it back */
			for (size_t i = 0; i < set->n; i++)
				if (set->s[i].len)
					__atomic_store_n((uint8_t *)set->s[i].at, set->s[i].orig[0], __ATOMIC_RELEASE);
			sync_cores();
			write_range(set, PROT_READ | PROT_EXEC);
			return -1;
		}
	}
	for (size_t i = 0; i < set->n; i++) {
		const uint8_t *b = on ? set->s[i].call : set->s[i].orig;
		if (!set->s[i].len)
			continue;
		for (int k = 1; k < 5; k++)
			__atomic_store_n((uint8_t *)set->s[i].at + k, b[k], __ATOMIC_RELAXED);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	sync_cores();
	for (size_t i = 0; i < set->n; i++)
		if (set->s[i].len)
			__atomic_store_n((uint8_t *)set->s[i].at, on ? set->s[i].call[0] : set->s[i].orig[0],
					 __ATOMIC_RELEASE);
	sync_cores();
	write_range(set, PROT_READ | PROT_EXEC);
	return 0;
}

/* Waits at most ~2 s: the holder may be the very thread we interrupted
 * (fnt_patch called from a signal handler), and the runtime never
 * deadlocks its host; returns -1 when it gave up. */
static int lock_busy(void)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE)) {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 2)
			return -1;
	}
	return 0;
}

/* carry out want_on; never waits for the lock (callable from a handler) */
static void apply(ucontext_t *uc)
{
	for (;;) {
		if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
			return;        /* the holder sees want_on when it lets go */
		int w;
		while ((w = __atomic_load_n(&want_on, __ATOMIC_ACQUIRE)) != is_on) {
			if (patch_switch(w, uc)) {
				patch_errors++;
				__atomic_store_n(&want_on, is_on, __ATOMIC_RELEASE);
				break;
			}
			is_on = w;
		}
		__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
		if (__atomic_load_n(&want_on, __ATOMIC_ACQUIRE) == is_on)
			return;
	}
}

static void on_patch_signal(int sig, siginfo_t *si, void *uc)
{
	int e = errno;
	(void)sig;
	(void)si;
	__atomic_fetch_xor(&want_on, 1, __ATOMIC_ACQ_REL);
	apply(uc);
	errno = e;
}

/* In a fork child: if another thread of the parent was switching at the
 * fork, the child has the pads half switched (an int3 in byte 0, perhaps)
 * and the lock held by a thread it does not have.  The child has only this
 * thread, so it finishes plainly: every pad back to the state before the
 * switch, and the lock free. */
void fnt_patch_fork_child(void)
{
	struct site_set *set = __atomic_load_n(&sites, __ATOMIC_ACQUIRE);
	if (!__atomic_load_n(&busy, __ATOMIC_ACQUIRE))
		return;
	if (set && set->n) {
		write_range(set, PROT_READ | PROT_WRITE | PROT_EXEC);
		for (size_t i = 0; i < set->n; i++)
			if (set->s[i].len)
				memcpy((void *)set->s[i].at, is_on ? set->s[i].call : set->s[i].orig, 5);
		write_range(set, PROT_READ | PROT_EXEC);
	}
	if (want_on >= 0)
		__atomic_store_n(&want_on, is_on, __ATOMIC_RELEASE);
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
}

FNT_EXPORT int fnt_patch(int on)
{
	int r = 0;
	on = !!on;
	if (want_on < 0)
		return -1;     /* no runtime start-up seen */
	if (lock_busy()) {
		patch_errors++;
		return -1;
	}
	__atomic_store_n(&want_on, on, __ATOMIC_RELEASE);
	if (is_on != on) {
		if (patch_switch(on, NULL)) {
			patch_errors++;
			__atomic_store_n(&want_on, is_on, __ATOMIC_RELEASE);
			r = -1;
		} else {
			is_on = on;
		}
	}
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
	apply(NULL);    /* a signal that came meanwhile */
	return r;
}

/* once, from the first module (the constructor) */
static void patch_init(void)
{
	if (want_on >= 0)
		return;
	const char *env = getenv(FNTRACE_ENV_PATCH_SIGNAL);
	long pg = sysconf(_SC_PAGESIZE);
	int sig = env && *env ? atoi(env) : 0;
	sync_core_ok = !syscall(SYS_membarrier, MB_REGISTER_SYNC_CORE, 0, 0);
	void *m = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sync_page = m == MAP_FAILED ? NULL : m;
	is_on = 1;
	if (sig > 0 && sig < NSIG && sig != SIGKILL && sig != SIGSTOP && sig != SIGTRAP) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_patch_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		if (!sigaction(sig, &sa, NULL)) {
			fnt_own_signal(sig);
			patch_sig = sig;
			is_on = 0;      /* start with every pad left alone */
		}
	}
	__atomic_store_n(&want_on, is_on, __ATOMIC_RELEASE);
}

/* a module's selected pads join the table; patched now if patching is on
 * (the module is new: nobody runs it yet) */
void fnt_patch_sites_add(const struct site *add, size_t n)
{
	if (lock_busy())
		return;        /* the module's pads stay NOPs: not traced */
	struct site_set *old = sites;
	size_t have = old ? old->n : 0;
	struct site_set *set = malloc(sizeof(*set) + (have + n) * sizeof(struct site));
	if (!set) {
		__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
		return;
	}
	if (have)
		memcpy(set->s, old->s, have * sizeof(struct site));
	memcpy(set->s + have, add, n * sizeof(struct site));
	set->n = have + n;
	qsort(set->s, set->n, sizeof(struct site), site_cmp);
	if (is_on) {
		/* one mprotect each way per run of pages that hold new sites,
		 * not two per site: -P '*' on a large program has thousands */
		struct site_set *fresh = malloc(sizeof(*fresh) + n * sizeof(struct site));
		if (fresh) {
			memcpy(fresh->s, add, n * sizeof(struct site));
			fresh->n = n;
			qsort(fresh->s, n, sizeof(struct site), site_cmp);
			if (!write_range(fresh, PROT_READ | PROT_WRITE | PROT_EXEC))
				for (size_t i = 0; i < n; i++)
					memcpy((void *)fresh->s[i].at, fresh->s[i].call, 5);
			write_range(fresh, PROT_READ | PROT_EXEC);
			free(fresh);
		}
	}
	__atomic_store_n(&sites, set, __ATOMIC_RELEASE);   /* the old one stays: a handler may read it */
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
	apply(NULL);
}

void fnt_patch_module_gone(uintptr_t lo, uintptr_t hi)
{
	struct site_set *old = __atomic_load_n(&sites, __ATOMIC_ACQUIRE);
	size_t keep = 0;
	if (!old)
		return;
	for (size_t i = 0; i < old->n; i++)
		keep += old->s[i].at < lo || old->s[i].at >= hi;
	if (keep == old->n || lock_busy())
		return;
	struct site_set *set = malloc(sizeof(*set) + keep * sizeof(struct site));
	if (set) {
		set->n = 0;
		for (size_t i = 0; i < old->n; i++)
			if (old->s[i].at < lo || old->s[i].at >= hi)
				set->s[set->n++] = old->s[i];
		__atomic_store_n(&sites, set, __ATOMIC_RELEASE);   /* the old one stays: a handler may read it */
	} else {
		/* no memory: the module's sites at least never switch again */
		for (size_t i = 0; i < old->n; i++)
			if (old->s[i].at >= lo && old->s[i].at < hi)
				old->s[i].len = 0;      /* skipped by every switch */
	}
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
}

/* a function with a listed pad: where the call goes, and whether it is selected */
struct pad_cand {
	uintptr_t site;
	unsigned run;             /* bytes of whole NOPs from the site (at most PAD_RUN_MAX) */
	int selected;
};
#define PAD_RUN_MAX 16

struct pad_scan {
	uint64_t bias;
	const uintptr_t *pads;
	size_t n_pads;
	struct { uintptr_t at, end; } *fns;   /* functions with a size, sorted */
	size_t n_fns, cap_fns;
	const uint8_t *stub;      /* the call's target, within reach of the module */
	char **globs;
	int n_globs;
	struct pad_cand *cands;
	size_t n_cands;
};

/* the bytes of whole NOP instructions at p, up to max (or a little past),
 * none from p + lim on */
static unsigned nop_run(const uint8_t *p, unsigned max, unsigned lim)
{
	unsigned len = 0, k;
	while (len < max && (k = nop_len(p + len, lim - len)))
		len += k;
	return len;
}

/* do the bytes [lo, hi) hold some of a function (one with a size)? */
static int function_in(const struct pad_scan *ps, uintptr_t lo, uintptr_t hi)
{
	size_t l = 0, h = ps->n_fns;
	while (l < h) {        /* the first one at or after hi */
		size_t mid = l + (h - l) / 2;
		if (ps->fns[mid].at < hi)
			l = mid + 1;
		else
			h = mid;
	}
	return l > 0 && ps->fns[l - 1].end > lo;     /* the last one before hi reaches into them */
}

/* Where the pad of the function [a, a + size) takes the call, or 0 when it
 * has none listed.  The section lists the pad's first byte:
 *  - at the symbol, or after its endbr64 (-fpatchable-function-entry=N);
 *  - M bytes before the symbol (=N,M): those are 1-byte NOPs, which no
 *    call reaches, and the N - M bytes at the symbol, or after its
 *    endbr64, are the ones that run.
 * A pad is another function's when it lies inside that one (an empty
 * function's pad is followed at once by the next function); a function
 * without a size owns none. */
static uintptr_t pad_site(const struct pad_scan *ps, uintptr_t a, uint64_t size)
{
	size_t lo = 0, hi = ps->n_pads;
	if (!size)
		return 0;
	while (lo < hi) {      /* the last pad at or before a + 4 */
		size_t mid = lo + (hi - lo) / 2;
		if (ps->pads[mid] <= a + 4)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	uintptr_t p = ps->pads[lo - 1];
	if (p == a || (p == a + 4 && size > 4 && is_endbr64((const uint8_t *)a)))
		return p;
	if (p >= a || a - p > 0xffff || function_in(ps, p, a))     /* M is below 65536 (gcc and clang) */
		return 0;
	for (uintptr_t q = p; q < a; q++)
		if (*(const uint8_t *)q != 0x90)
			return 0;
	return size > 4 && is_endbr64((const uint8_t *)a) ? a + 4 : a;
}

static void pad_function_size(void *ctx, const Elf64_Sym *s, const char *name)
{
	struct pad_scan *ps = ctx;
	(void)name;
	if (!s->st_size)
		return;
	if (ps->n_fns == ps->cap_fns) {
		size_t cap = ps->cap_fns ? 2 * ps->cap_fns : 256;
		__typeof__(ps->fns) nf = realloc(ps->fns, cap * sizeof(*nf));
		if (!nf)
			return;
		ps->fns = nf;
		ps->cap_fns = cap;
	}
	ps->fns[ps->n_fns].at = (uintptr_t)(ps->bias + s->st_value);
	ps->fns[ps->n_fns++].end = (uintptr_t)(ps->bias + s->st_value + s->st_size);
}

/* one function symbol: a candidate when it has a pad listed */
static void pad_function(void *ctx, const Elf64_Sym *s, const char *name)
{
	struct pad_scan *ps = ctx;
	uintptr_t fn = (uintptr_t)(ps->bias + s->st_value);
	uintptr_t a = pad_site(ps, fn, s->st_size);
	if (!a)
		return;
	struct pad_cand *nc = realloc(ps->cands, (ps->n_cands + 1) * sizeof(*nc));
	if (!nc)
		return;
	ps->cands = nc;
	/* the run stops at the function's end: what follows may be the next
	 * function, or not mapped */
	uintptr_t end = fn + s->st_size;
	unsigned lim = end - a > 64 ? 64 : (unsigned)(end - a);
	ps->cands[ps->n_cands++] = (struct pad_cand){
		a, nop_run((const uint8_t *)a, PAD_RUN_MAX, lim),
		fnt_patch_glob_match(name, ps->globs, ps->n_globs) || fnt_argspec_find(a) || fnt_argspec_find(a - 4),
	};
}

/* Pads of other NOPs than five 1-byte ones or one 5-byte one (clang's
 * 6 to 16-byte pads, a 7-byte NOP, 66 90 ...) become one 5-byte NOP and
 * NOPs after it, the same instructions' worth: the call then replaces one
 * whole instruction, and returns to the start of the next.  Done once, as
 * the module is first seen, before any of its sites is switched; one
 * mprotect each way per run of pages (a pair per pad took 6 us each: 50 ms
 * at the start of a program of 8,000 functions).  A site whose page could
 * not be made writable keeps its pad and is dropped (len 0).
 * norm[i]: the bytes to rewrite at sites[i], 0 for none; sites by address */
static void pad_normalise(struct site *sites, const uint8_t *norm, size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t i = 0;
	while (i < n) {
		if (!norm[i]) {
			i++;
			continue;
		}
		uintptr_t p0 = sites[i].at & ~(uintptr_t)(pg - 1), p1 = 0;
		size_t k = i;
		for (; k < n; k++) {       /* the run: pads whose pages touch or overlap */
			if (!norm[k])
				continue;
			uintptr_t a0 = sites[k].at & ~(uintptr_t)(pg - 1);
			uintptr_t a1 = (sites[k].at + norm[k] + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1);
			if (p1 && a0 > p1)
				break;
			if (a1 > p1)
				p1 = a1;
		}
		int ok = !mprotect((void *)p0, p1 - p0, PROT_READ | PROT_WRITE | PROT_EXEC);
		for (size_t j = i; j < k; j++) {
			uint8_t bytes[32];
			if (!norm[j])
				continue;
			if (!ok) {
				sites[j].len = 0;
				continue;
			}
			pad_normal(bytes, norm[j]);
			memcpy((void *)sites[j].at, bytes, norm[j]);
		}
		if (!ok || mprotect((void *)p0, p1 - p0, PROT_READ | PROT_EXEC))
			patch_errors++;
		i = k;
	}
}

/* The module's pads, decided together.  How many NOP bytes follow each
 * site says the pad's length, except where the function's own code starts
 * with NOPs (a loop of `nop`s, alignment), which would read as a longer
 * pad: the call would then cover code that a jump may land in.  The
 * compiler gives every function the same pad, bar an attribute: the
 * length most functions show is the module's.  If it is under 5 bytes, no
 * function is patched (those showing 5 or more owe it to their code). */
static void pad_decide(struct pad_scan *ps, const char *path)
{
	size_t hist[PAD_RUN_MAX + 1] = { 0 }, n_sel = 0, n_short = 0, n_sites = 0, n_on = 0;
	unsigned mode = 0;
	struct site *news = NULL;
	uint8_t *norm = NULL;
	qsort(ps->cands, ps->n_cands, sizeof(*ps->cands), cmp_addr);     /* by site, its first field */
	for (size_t i = 0; i < ps->n_cands; i++)
		if (!i || ps->cands[i].site != ps->cands[i - 1].site)     /* aliases: once */
			hist[ps->cands[i].run > PAD_RUN_MAX ? PAD_RUN_MAX : ps->cands[i].run]++;
	for (unsigned k = 1; k <= PAD_RUN_MAX; k++)
		if (hist[k] > hist[mode])
			mode = k;
	for (size_t i = 0; i < ps->n_cands; i++)
		n_sel += ps->cands[i].selected;
	if (n_sel && (!(news = calloc(n_sel, sizeof(*news))) || !(norm = calloc(n_sel, 1)))) {
		free(news);
		return;
	}
	for (size_t i = 0; i < ps->n_cands; i++) {
		const struct pad_cand *c = &ps->cands[i];
		int kind;
		if (!c->selected)
			continue;
		if (n_sites && news[n_sites - 1].at == c->site)
			continue;      /* an alias of the last one */
		unsigned len = mode >= 5 && c->run >= 5 ? pad_len((const uint8_t *)c->site, c->run, &kind) : 0;
		int64_t rel = (int64_t)((uintptr_t)ps->stub - (c->site + 5));
		if (!len) {
			if (!i || ps->cands[i - 1].site != c->site)
				n_short++;
			continue;
		}
		if (rel != (int32_t)rel)
			continue;
		norm[n_sites] = kind ? 0 : (uint8_t)len;
		struct site *st_ = &news[n_sites++];
		int32_t r32 = (int32_t)rel;
		st_->at = c->site;
		st_->len = 5;
		st_->resume = c->site + 5;
		st_->call[0] = 0xe8;
		memcpy(st_->call + 1, &r32, 4);
	}
	pad_normalise(news, norm, n_sites);
	for (size_t i = 0; i < n_sites; i++)
		if (news[i].len) {
			news[n_on] = news[i];
			memcpy(news[n_on++].orig, (const void *)news[i].at, 5);     /* the 5-byte NOP, if rewritten */
		}
	if (n_on) {
		fnt_patch_sites_add(news, n_on);
		/* record's check that the -P globs matched something reads it */
		fnt_patch_note(FNT_PATCH_PADS, ps->bias, (uint32_t)n_on, path);
	}
	if (n_short)   /* said once for the module: record warns, info lists it */
		fnt_patch_note(FNT_PATCH_SHORT_PAD, ps->bias, (uint32_t)n_short, path);
	free(news);
	free(norm);
}

void fnt_patch_module(const char *path, uint64_t bias)
{
	struct fnt_elf e;
	uintptr_t *pads = NULL;
	size_t n_pads = 0;
	char **globs;
	int n_globs = fnt_patch_globs(&globs);
	struct pad_scan ps = { .bias = bias };

	patch_init();
	if (fnt_elf_open(&e, path))
		return;
	for (const Elf64_Shdr *sec = NULL; (sec = fnt_elf_section(&e, "__patchable_function_entries", sec));) {
		if (!(sec->sh_flags & SHF_ALLOC))
			continue;
		/* the entries, relocated, in memory */
		const uintptr_t *entries = (const uintptr_t *)(uintptr_t)(bias + sec->sh_addr);
		size_t k = sec->sh_size / 8;
		uintptr_t *np = realloc(pads, (n_pads + k) * sizeof(*pads));
		if (!np)
			goto out;
		pads = np;
		memcpy(pads + n_pads, entries, k * 8);
		n_pads += k;
	}
	if (!n_pads) {
		/* no pads: built without any instrumentation, -P moves prologues */
		if (n_globs && fnt_prologue_wanted(&e, path))
			fnt_prologue_module(&e, path, bias, globs, n_globs);
		goto out;
	}
	qsort(pads, n_pads, sizeof(*pads), cmp_addr);
	ps.stub = stub_near(pads[0], pads[n_pads - 1] + 5);
	if (!ps.stub)
		goto out;
	ps.pads = pads;
	ps.n_pads = n_pads;
	ps.globs = globs;
	ps.n_globs = n_globs;
	fnt_elf_symbols(&e, STT_FUNC, pad_function_size, &ps);
	qsort(ps.fns, ps.n_fns, sizeof(*ps.fns), cmp_addr);     /* by at, their first field */
	fnt_elf_symbols(&e, STT_FUNC, pad_function, &ps);
	pad_decide(&ps, path);
out:
	free(ps.fns);
	free(ps.cands);
	free(pads);
	fnt_elf_close(&e);
}
#else
#include "fntrace.h"
#include "runtime/runtime.h"
/* the static archive has no patching */
FNT_EXPORT int fnt_patch(int on)
{
	(void)on;
	return -1;
}
#endif
