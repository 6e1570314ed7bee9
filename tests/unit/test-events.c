/*
 * test-events.c - the real encoder against the real decoder.
 *
 * This binary links the static runtime (libfntrace.a), so calling
 * __cyg_profile_func_enter/exit drives the very hot path that instrumented
 * programs run.  The runtime configures itself from the environment in its
 * constructor, so the test runs in two roles:
 *
 *   orchestrator (no FNT_TEST_CHILD): a priority constructor, which runs
 *     before the runtime's, sets FNTRACE_DISABLE=1 so this process records
 *     nothing; main() then re-executes /proc/self/exe as recording children
 *     with FNTRACE_DIR=<mkdtemp>, FNTRACE_CHUNK_SIZE=16384 (many rollovers),
 *     FNTRACE_CALLSITE / FNTRACE_CLOCK as the case needs, and checks what
 *     they wrote with trace_open()/trace_walk();
 *   child (FNT_TEST_CHILD=stream|clock): feeds the hooks and exits.
 *
 * The streams are pseudo-random but deterministic (seeded by the stream
 * number), so the orchestrator regenerates exactly what a child fed.  Each
 * stream starts with the entry of a marker address that names it.
 *
 * Cases:
 *  - streams: 6 threads with address pools of 1, 10, 64, 1000 entries (the
 *    64-slot cache hits, misses and collides), high/low far-apart addresses
 *    with pauses of milliseconds, forced TIME records (the thread's `last`
 *    tick is moved 2^48 ticks back and forth: a pause of that size cannot be
 *    waited for), and addresses the writer must drop (LOST record); decoded
 *    per thread it must equal what was fed (kind, addr, call site), with
 *    non-decreasing times, exact counts and no damage.  Once without and
 *    once with FNTRACE_CALLSITE=1.  The time-ordered walk must agree.
 *  - chunk independence: every chunk decoded alone (header + that chunk)
 *    gives exactly its share of the thread's events.
 *  - truncation inside a chunk (a copy on disk, trace_open): events of the
 *    chunks before the cut decode exactly, the cut chunk yields a prefix of
 *    its events, a warning says "truncated", nothing crashes.
 *  - random bytes overwritten in one chunk's data: no crash, every other
 *    chunk decodes exactly.
 *  - clock: a call around a 50 ms nanosleep lasts 50..500 ms under
 *    FNTRACE_CLOCK=tsc and =monotonic; trace_ns_to_real of the first event
 *    is within a few seconds of the wall clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fntrace.h"
#include "format/reader.h"
#include "runtime/runtime.h"   /* fnt_self: to force TIME records */

#include "check.h"

static void *xmalloc_(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

static void *xrealloc_(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* the orchestrator records nothing itself: this runs before the runtime's
 * constructor (which has the default priority) */
__attribute__((constructor(101))) static void test_early(void)
{
	if (!getenv("FNT_TEST_CHILD"))
		setenv(FNTRACE_ENV_DISABLE, "1", 1);
}

/* ---- deterministic streams ---- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static uint64_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t real_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

enum { TAMPER_NONE, TAMPER_BACK, TAMPER_FWD };

struct step {
	uint64_t addr, site;
	uint8_t is_exit;
	uint8_t dropped;      /* the writer cannot encode it: counted as lost */
	uint8_t tamper;       /* force a TIME record before this event */
	uint32_t pause_us;    /* sleep before this event */
};

struct stream_cfg {
	unsigned pool;        /* distinct addresses */
	int far;              /* addresses both very low and very high */
	unsigned n;           /* events, about */
	unsigned pauses;      /* sleeps of 1..20 ms */
	unsigned tampers;     /* forced TIME records */
	int lost;             /* insert unencodable addresses */
};

static const struct stream_cfg cfgs[] = {
	{ 1, 0, 40000, 0, 0, 0 },
	{ 10, 0, 60000, 0, 0, 0 },
	{ 64, 0, 80000, 0, 0, 0 },
	{ 1000, 0, 80000, 0, 0, 0 },
	{ 300, 1, 60000, 12, 8, 0 },
	{ 64, 0, 20000, 0, 0, 1 },
};
#define N_STREAMS (sizeof(cfgs) / sizeof(cfgs[0]))

/* addresses the writer cannot put in a NEW record: expected to be dropped */
static const uint64_t bad_addrs[] = { 0x8000000000000000ull, 0xffffffff81000000ull };

static uint64_t marker_addr(unsigned idx) { return 0x10000 + idx * 0x100; }

struct stream {
	struct step *s;
	size_t n, cap;
	uint64_t pause_total_ns;
	unsigned lost;
	unsigned collisions;  /* pool addresses sharing a cache slot */
};

static void push_step(struct stream *st, struct step s)
{
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 1024;
		st->s = xrealloc_(st->s, st->cap * sizeof(*st->s));
	}
	st->s[st->n++] = s;
}

static uint64_t rand_site(uint64_t *r, uint64_t fn)
{
	switch (rng_next(r) % 8) {
	case 0:
		return fn ^ (1ull << 63);                 /* too far: recorded as 0 (site == fn) */
	case 1:
		return fn - (rng_next(r) % (1ull << 44)); /* far below */
	case 2:
		return fn + (rng_next(r) % (1ull << 44));
	default:
		return fn + (rng_next(r) % 4096) - 2048;
	}
}

static void gen_stream(unsigned idx, struct stream *st)
{
	const struct stream_cfg *c = &cfgs[idx];
	uint64_t r = 0x9E3779B97F4A7C15ull * (idx + 1) + 12345;
	uint64_t *pool = xmalloc_(c->pool * sizeof(*pool));
	uint64_t *stack = xmalloc_(256 * sizeof(*stack));
	unsigned depth = 0;
	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < c->pool; i++) {
		if (c->far && (i & 1))
			pool[i] = 0x7ff000000000ull + (rng_next(&r) % (1ull << 36));
		else if (c->far)
			pool[i] = 0x100000 + (rng_next(&r) % 0x100000);
		else
			pool[i] = 0x400000 + (rng_next(&r) % (1ull << 40));
	}
	{
		unsigned char used[FNT_CACHE_SLOTS] = { 0 };
		for (unsigned i = 0; i < c->pool; i++)
			st->collisions += used[fnt_slot(pool[i])]++ ? 1 : 0;
	}
	push_step(st, (struct step){ .addr = marker_addr(idx), .site = marker_addr(idx) + 5 });
	for (unsigned i = 0; i < c->n; i++) {
		struct step s = { 0 };
		int enter = depth == 0 || (depth < 200 && rng_next(&r) % 2);
		if (enter) {
			s.addr = pool[rng_next(&r) % c->pool];
			s.site = rand_site(&r, s.addr);
			stack[depth++] = s.addr;
		} else {
			s.addr = stack[--depth];
			s.is_exit = 1;
		}
		push_step(st, s);
	}
	while (depth)
		push_step(st, (struct step){ .addr = stack[--depth], .is_exit = 1 });
	push_step(st, (struct step){ .addr = marker_addr(idx), .is_exit = 1 });
	for (unsigned i = 0; i < c->pauses; i++) {
		struct step *s = &st->s[1 + rng_next(&r) % (st->n - 1)];
		s->pause_us = 1000 + (uint32_t)(rng_next(&r) % 19000);
		st->pause_total_ns += s->pause_us * 1000ull;
	}
	for (unsigned i = 0; i < c->tampers; i++)
		st->s[1 + rng_next(&r) % (st->n - 1)].tamper = (i & 1) ? TAMPER_FWD : TAMPER_BACK;
	if (c->lost) {
		/* enter/exit pairs of unencodable addresses, spliced in at depth
		 * boundaries (between two events, any place is well nested) */
		struct stream out = *st;
		out.s = NULL;
		out.n = out.cap = 0;
		for (size_t i = 0; i < st->n; i++) {
			if (i > 0 && i % 997 == 0) {
				uint64_t b = bad_addrs[(i / 997) % 2];
				push_step(&out, (struct step){ .addr = b, .site = b + 1, .dropped = 1 });
				push_step(&out, (struct step){ .addr = b, .is_exit = 1, .dropped = 1 });
				out.lost += 2;
			}
			push_step(&out, st->s[i]);
		}
		free(st->s);
		*st = out;
	}
	free(pool);
	free(stack);
}

/* ---- child: record ---- */

static void feed(const struct stream *st)
{
	for (size_t i = 0; i < st->n; i++) {
		const struct step *s = &st->s[i];
		if (s->pause_us) {
			struct timespec ts = { 0, (long)s->pause_us * 1000 };
			nanosleep(&ts, NULL);
		}
		if (s->tamper == TAMPER_BACK)
			fnt_self.last -= 1ull << 48;   /* a pause longer than 2^47 ticks */
		else if (s->tamper == TAMPER_FWD)
			fnt_self.last += 1ull << 48;   /* a clock that went backwards */
		if (s->is_exit)
			__cyg_profile_func_exit((void *)(uintptr_t)s->addr, (void *)(uintptr_t)s->site);
		else
			__cyg_profile_func_enter((void *)(uintptr_t)s->addr, (void *)(uintptr_t)s->site);
	}
}

static void *feed_thread(void *arg)
{
	unsigned idx = (unsigned)(uintptr_t)arg;
	struct stream st;
	gen_stream(idx, &st);
	feed(&st);
	free(st.s);
	return NULL;
}

static int child_stream(void)
{
	pthread_t th[N_STREAMS];
	for (unsigned i = 1; i < N_STREAMS; i++)
		if (pthread_create(&th[i], NULL, feed_thread, (void *)(uintptr_t)i)) {
			fprintf(stderr, "pthread_create failed\n");
			return 2;
		}
	feed_thread((void *)(uintptr_t)0);
	for (unsigned i = 1; i < N_STREAMS; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static __attribute__((noinline)) void clock_fn(void) { __asm__ volatile(""); }

static int child_clock(void)
{
	struct timespec ts = { 0, 50 * 1000000L };
	__cyg_profile_func_enter((void *)clock_fn, (void *)child_clock);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	__cyg_profile_func_exit((void *)clock_fn, (void *)child_clock);
	return 0;
}

/* ---- orchestrator ---- */

static const char *ring_env;     /* FNTRACE_RING for the next child, or NULL */

static int run_child(const char *mode, const char *dir, int callsite, const char *clock)
{
	pid_t pid = fork();
	int status;
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setenv("FNT_TEST_CHILD", mode, 1);
		unsetenv(FNTRACE_ENV_DISABLE);
		setenv(FNTRACE_ENV_DIR, dir, 1);
		setenv(FNTRACE_ENV_CHUNK_SIZE, "16384", 1);
		setenv(FNTRACE_ENV_CALLSITE, callsite ? "1" : "0", 1);
		if (clock)
			setenv(FNTRACE_ENV_CLOCK, clock, 1);
		else
			unsetenv(FNTRACE_ENV_CLOCK);
		if (ring_env)
			setenv(FNTRACE_ENV_RING, ring_env, 1);
		else
			unsetenv(FNTRACE_ENV_RING);
		execl("/proc/self/exe", "test-events", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *d = xmalloc_(4096);
	snprintf(d, 4096, "%s/fntrace-test-events.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(d)) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		exit(2);
	}
	return d;
}

static void rm_rf(const char *dir)
{
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd)) {
		/* best effort */
	}
}

/* the single .fnt file in dir, read into memory */
static uint8_t *read_trace_file(const char *dir, size_t *len, char *path, size_t pathlen)
{
	char cmd[8192];
	FILE *f;
	snprintf(cmd, sizeof(cmd), "ls '%s' | grep '\\.fnt$'", dir);
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	char name[1024] = "";
	int n = 0;
	while (fgets(name + 0, sizeof(name), f))
		n++;
	pclose(f);
	if (n != 1) {
		CHECK(0, "'%s': expected exactly one .fnt file, found %d", dir, n);
		return NULL;
	}
	name[strcspn(name, "\n")] = 0;
	snprintf(path, pathlen, "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = xmalloc_((size_t)sz);
	if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*len = (size_t)sz;
	return buf;
}

static int write_file(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(buf, 1, len, f);
	fclose(f);
	return w == len ? 0 : -1;
}

/* decoded events */
struct dev {
	uint8_t kind;
	uint64_t addr, callsite, count, ns;
	uint32_t func;
};

struct dvec {
	struct dev *v;
	size_t n, cap;
	int stream_ends;
};

struct walk_ctx {
	struct trace *t;
	struct dvec *per_thread;       /* by index in procs[0].threads */
	size_t n_threads;
	struct dvec all;               /* time-ordered walks: every event */
	uint64_t thread_of_all_cap;
	struct trace_thread **thread_of; /* parallel to all.v */
};

static void dvec_push(struct dvec *d, struct dev e)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 1024;
		d->v = xrealloc_(d->v, d->cap * sizeof(*d->v));
	}
	d->v[d->n++] = e;
}

static int collect(void *arg, const struct trace_event *ev)
{
	struct walk_ctx *w = arg;
	size_t ti = (size_t)(ev->thread - ev->thread->proc->threads);
	struct dvec *d;
	if (ti >= w->n_threads) {
		CHECK(0, "event of an unknown thread");
		return 1;
	}
	d = &w->per_thread[ti];
	if (ev->kind == TRACE_STREAM_END) {
		d->stream_ends++;
		return 0;
	}
	struct dev e = { .kind = ev->kind, .addr = ev->addr, .callsite = ev->callsite, .count = ev->count,
			 .ns = ev->ns, .func = ev->func };
	if (ev->kind != TRACE_ENTRY && ev->kind != TRACE_EXIT)
		e.addr = e.callsite = 0;
	if (ev->kind != TRACE_LOST && ev->kind != TRACE_UNWIND)
		e.count = 0;
	dvec_push(d, e);
	if (w->thread_of) {
		if (w->all.n == w->thread_of_all_cap) {
			w->thread_of_all_cap = w->thread_of_all_cap ? w->thread_of_all_cap * 2 : 1024;
			w->thread_of = xrealloc_(w->thread_of, w->thread_of_all_cap * sizeof(*w->thread_of));
		}
		w->thread_of[w->all.n] = ev->thread;
		dvec_push(&w->all, e);
	}
	return 0;
}

static void walk_free(struct walk_ctx *w)
{
	for (size_t i = 0; i < w->n_threads; i++)
		free(w->per_thread[i].v);
	free(w->per_thread);
	free(w->all.v);
	free(w->thread_of);
	memset(w, 0, sizeof(*w));
}

static int walk_collect(struct trace *t, int by_time, struct walk_ctx *w)
{
	memset(w, 0, sizeof(*w));
	w->t = t;
	w->n_threads = t->n_procs ? t->procs[0].n_threads : 0;
	w->per_thread = calloc(w->n_threads + 1, sizeof(*w->per_thread));
	if (by_time)
		w->thread_of = xmalloc_(sizeof(*w->thread_of)), w->thread_of_all_cap = 1;
	return trace_walk(t, by_time, collect, w);
}

static int same_event(const struct dev *a, const struct dev *b)
{
	return a->kind == b->kind && a->addr == b->addr && a->callsite == b->callsite && a->count == b->count;
}

static const char *kind_name(unsigned k)
{
	static const char *const n[] = { "?", "ENTRY", "EXIT", "LOST", "THREAD_END", "STREAM_END", "UNWIND" };
	return k < 7 ? n[k] : "?";
}

static uint64_t expect_callsite(const struct step *s, int callsite_mode)
{
	if (!callsite_mode || s->is_exit)
		return 0;
	if (fnt_zigzag((int64_t)(s->site - s->addr)) > FNT_VARINT_MAX)
		return s->addr;
	return s->site;
}

/* the stream whose marker opens this thread's events, or -1 */
static int stream_of(const struct dvec *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].kind == TRACE_ENTRY) {
			for (unsigned k = 0; k < N_STREAMS; k++)
				if (d->v[i].addr == marker_addr(k))
					return (int)k;
			return -1;
		}
	return -1;
}

/* compare a thread's decoded ENTRY/EXIT events with a stream */
static void compare_stream(const char *what, const struct dvec *d, const struct stream *st, int callsite_mode)
{
	size_t k = 0, i;
	int ok = 1;
	for (i = 0; i < d->n && ok; i++) {
		const struct dev *e = &d->v[i];
		if (e->kind != TRACE_ENTRY && e->kind != TRACE_EXIT)
			continue;
		while (k < st->n && st->s[k].dropped)
			k++;
		if (k == st->n) {
			ok = CHECK(0, "%s: decoded event %zu (%s %#" PRIx64 ") is beyond the %zu fed", what, i,
				   kind_name(e->kind), e->addr, k);
			break;
		}
		const struct step *s = &st->s[k];
		struct dev want = { .kind = s->is_exit ? TRACE_EXIT : TRACE_ENTRY, .addr = s->addr,
				    .callsite = expect_callsite(s, callsite_mode) };
		if (!same_event(e, &want))
			ok = CHECK(0, "%s: event %zu (fed #%zu): decoded %s %#" PRIx64 " site %#" PRIx64
				   ", fed %s %#" PRIx64 " site %#" PRIx64, what, i, k, kind_name(e->kind), e->addr,
				   e->callsite, kind_name(want.kind), want.addr, want.callsite);
		k++;
	}
	while (ok && k < st->n && st->s[k].dropped)
		k++;
	if (ok)
		CHECK(k == st->n, "%s: %zu of %zu fed events decoded", what, k, st->n);
}

/* ---- per-chunk decoding ---- */

struct chunk_info {
	int type;                 /* 0: no chunk */
	uint32_t thread, seq;
	struct dvec ev;           /* its events decoded alone */
};

/* decode chunk idx of a file image alone: header + that chunk */
static void decode_alone(const uint8_t *img, size_t len, uint32_t cs, uint64_t idx, struct dvec *out)
{
	size_t off = FNT_HEADER_SIZE + idx * cs, n = len - off < cs ? len - off : cs;
	uint8_t *buf = xmalloc_(FNT_HEADER_SIZE + n);
	struct trace *t = NULL;
	char err[256];
	memcpy(buf, img, FNT_HEADER_SIZE);
	memcpy(buf + FNT_HEADER_SIZE, img + off, n);
	memset(out, 0, sizeof(*out));
	if (trace_open_buffer(&t, buf, FNT_HEADER_SIZE + n, err, sizeof(err))) {
		CHECK(0, "chunk %" PRIu64 " alone does not open: %s", idx, err);
		free(buf);
		return;
	}
	struct walk_ctx w;
	walk_collect(t, 0, &w);
	for (size_t i = 0; i < w.n_threads; i++)
		for (size_t k = 0; k < w.per_thread[i].n; k++)
			dvec_push(out, w.per_thread[i].v[k]);
	walk_free(&w);
	trace_close(t);
	free(buf);
}

static struct chunk_info *chunk_table(const uint8_t *img, size_t len, uint64_t *n_out)
{
	const struct fnt_file_header *h = (const void *)img;
	uint32_t cs = h->chunk_size;
	uint64_t n = (len - FNT_HEADER_SIZE) / cs;
	struct chunk_info *ci = calloc(n + 1, sizeof(*ci));
	for (uint64_t i = 0; i < n; i++) {
		struct fnt_chunk_header ch;
		memcpy(&ch, img + FNT_HEADER_SIZE + i * cs, sizeof(ch));
		if (ch.magic != FNT_CHUNK_MAGIC)
			continue;
		ci[i].type = ch.type;
		ci[i].thread = ch.thread;
		ci[i].seq = ch.seq;
		if (ch.type == FNT_CHUNK_EVENTS)
			decode_alone(img, len, cs, i, &ci[i].ev);
	}
	*n_out = n;
	return ci;
}

static void chunk_table_free(struct chunk_info *ci, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		free(ci[i].ev.v);
	free(ci);
}

/* events of thread `serial` from its chunks with file index in [from, to) */
static void concat_chunks(const struct chunk_info *ci, uint64_t from, uint64_t to, uint32_t serial, struct dvec *out)
{
	memset(out, 0, sizeof(*out));
	for (uint64_t i = from; i < to; i++)
		if (ci[i].type == FNT_CHUNK_EVENTS && ci[i].thread == serial)
			for (size_t k = 0; k < ci[i].ev.n; k++)
				dvec_push(out, ci[i].ev.v[k]);
}

/* d[at..at+want->n) == want; tolerate (allow_torn_site) a lost call site on
 * the very last event (the cut fell between an entry and its CALLSITE) */
static int dvec_match_at(const struct dvec *d, size_t at, const struct dvec *want, size_t n, const char *what)
{
	if (at + n > d->n)
		return CHECK(0, "%s: %zu events decoded, wanted at least %zu", what, d->n, at + n);
	for (size_t i = 0; i < n; i++)
		if (!same_event(&d->v[at + i], &want->v[i]))
			return CHECK(0, "%s: event %zu: %s %#" PRIx64 " site %#" PRIx64 " count %" PRIu64
				     ", wanted %s %#" PRIx64 " site %#" PRIx64 " count %" PRIu64, what, at + i,
				     kind_name(d->v[at + i].kind), d->v[at + i].addr, d->v[at + i].callsite,
				     d->v[at + i].count, kind_name(want->v[i].kind), want->v[i].addr,
				     want->v[i].callsite, want->v[i].count);
	return CHECK(1, "");
}

static int has_warning(const struct trace *t, const char *needle)
{
	for (size_t i = 0; i < t->n_warnings; i++)
		if (strstr(t->warnings[i], needle))
			return 1;
	return 0;
}

static struct trace_thread *thread_by_serial(struct trace *t, uint32_t serial, size_t *idx)
{
	for (size_t i = 0; i < t->procs[0].n_threads; i++)
		if (t->procs[0].threads[i].serial == serial) {
			*idx = i;
			return &t->procs[0].threads[i];
		}
	return NULL;
}

/* the full decode of the original, by serial */
struct full {
	uint32_t *serials;
	struct dvec *ev;
	size_t n;
};

static void truncation_tests(const char *label, const uint8_t *img, size_t len, const struct chunk_info *ci,
			     uint64_t n_chunks, const struct full *full, uint64_t *rng)
{
	uint32_t cs = ((const struct fnt_file_header *)img)->chunk_size;
	for (int trial = 0; trial < 12; trial++) {
		uint64_t k = rng_next(rng) % n_chunks;
		size_t r = trial < 3 ? 1 + rng_next(rng) % (FNT_CHUNK_HDR_SIZE - 1)   /* inside the chunk header */
				     : FNT_CHUNK_HDR_SIZE + rng_next(rng) % (cs - FNT_CHUNK_HDR_SIZE);
		size_t cut = FNT_HEADER_SIZE + k * cs + r;
		char dir[4096], path[4200], what[256];
		struct trace *t = NULL;
		char err[512];
		snprintf(what, sizeof(what), "%s: cut at chunk %" PRIu64 " + %zu", label, k, r);
		if (cut >= len)
			continue;
		char *tmp = make_tmpdir();
		snprintf(dir, sizeof(dir), "%s", tmp);
		snprintf(path, sizeof(path), "%s/1-0.fnt", dir);
		free(tmp);
		if (!CHECK(write_file(path, img, cut) == 0, "%s: cannot write the copy", what)) {
			rm_rf(dir);
			continue;
		}
		if (!CHECK(trace_open(&t, dir, err, sizeof(err)) == 0, "%s: trace_open: %s", what, err)) {
			rm_rf(dir);
			continue;
		}
		CHECK(has_warning(t, "truncated"), "%s: no warning says the file is truncated (%zu warnings)", what,
		      t->n_warnings);
		struct walk_ctx w;
		walk_collect(t, 0, &w);
		for (size_t fi = 0; fi < full->n; fi++) {
			size_t ti = 0;
			struct trace_thread *th = thread_by_serial(t, full->serials[fi], &ti);
			struct dvec before, cutc;
			concat_chunks(ci, 0, k, full->serials[fi], &before);
			concat_chunks(ci, k, k + 1, full->serials[fi], &cutc);
			if (!th) {
				/* a thread whose every chunk is past the cut (and whose
				 * META_THREAD record is too) */
				CHECK(before.n == 0 && (cutc.n == 0 || r < FNT_CHUNK_HDR_SIZE),
				      "%s: thread %u vanished with %zu events before the cut", what, full->serials[fi],
				      before.n);
				free(before.v);
				free(cutc.v);
				continue;
			}
			const struct dvec *d = &w.per_thread[ti];
			char w2[300];
			snprintf(w2, sizeof(w2), "%s: thread %u", what, full->serials[fi]);
			if (dvec_match_at(d, 0, &before, before.n, w2)) {
				size_t extra = d->n - before.n;
				if (!CHECK(extra <= cutc.n, "%s: %zu events after the last whole chunk, the cut chunk has %zu",
					   w2, extra, cutc.n)) {
				} else if (extra) {
					/* a prefix of the cut chunk; its last entry may have lost its call site */
					const struct dev *last = &d->v[d->n - 1];
					const struct dev *lw = &cutc.v[extra - 1];
					if (last->kind == TRACE_ENTRY && lw->kind == TRACE_ENTRY && last->addr == lw->addr &&
					    last->callsite == 0)
						extra--;
					dvec_match_at(d, before.n, &cutc, extra, w2);
				}
			}
			free(before.v);
			free(cutc.v);
		}
		walk_free(&w);
		/* the time-ordered walk copes too */
		walk_collect(t, 1, &w);
		walk_free(&w);
		trace_close(t);
		rm_rf(dir);
	}
}

static void corruption_tests(const char *label, const uint8_t *img, size_t len, const struct chunk_info *ci,
			     uint64_t n_chunks, const struct full *full, uint64_t *rng, int trials)
{
	uint32_t cs = ((const struct fnt_file_header *)img)->chunk_size;
	uint8_t *copy = xmalloc_(len);
	for (int trial = 0; trial < trials; trial++) {
		uint64_t k;
		int tries = 0;
		do
			k = rng_next(rng) % n_chunks;
		while (ci[k].type != FNT_CHUNK_EVENTS && ++tries < 1000);
		if (ci[k].type != FNT_CHUNK_EVENTS)
			break;
		memcpy(copy, img, len);
		unsigned nbytes = 1 + (unsigned)(rng_next(rng) % 24);
		/* bytes inside the part of the chunk that holds data, most of the time */
		size_t used = cs;
		while (used > FNT_CHUNK_HDR_SIZE && !img[FNT_HEADER_SIZE + k * cs + used - 1])
			used--;
		for (unsigned b = 0; b < nbytes; b++) {
			size_t span = (rng_next(rng) % 4 ? used : cs) - FNT_CHUNK_HDR_SIZE + 1;
			size_t at = FNT_HEADER_SIZE + k * cs + FNT_CHUNK_HDR_SIZE + rng_next(rng) % span;
			if (at < FNT_HEADER_SIZE + (k + 1) * cs && at < len)
				copy[at] = (uint8_t)rng_next(rng);
		}
		char what[256], err[512];
		struct trace *t = NULL;
		snprintf(what, sizeof(what), "%s: %u bytes overwritten in chunk %" PRIu64 " (thread %u)", label,
			 nbytes, k, ci[k].thread);
		if (!CHECK(trace_open_buffer(&t, copy, len, err, sizeof(err)) == 0, "%s: does not open: %s", what, err))
			continue;
		struct walk_ctx w;
		walk_collect(t, trial & 1, &w);
		for (size_t fi = 0; fi < full->n; fi++) {
			size_t ti = 0;
			struct trace_thread *th = thread_by_serial(t, full->serials[fi], &ti);
			char w2[300];
			snprintf(w2, sizeof(w2), "%s: thread %u", what, full->serials[fi]);
			if (!CHECK(th != NULL, "%s: thread lost", w2))
				continue;
			const struct dvec *d = &w.per_thread[ti];
			if (full->serials[fi] != ci[k].thread) {
				dvec_match_at(d, 0, &full->ev[fi], full->ev[fi].n, w2);
				CHECK(d->n == full->ev[fi].n, "%s: %zu events, %zu before the damage", w2, d->n,
				      full->ev[fi].n);
				continue;
			}
			struct dvec before, after;
			concat_chunks(ci, 0, k, ci[k].thread, &before);
			concat_chunks(ci, k + 1, n_chunks, ci[k].thread, &after);
			if (dvec_match_at(d, 0, &before, before.n, w2) &&
			    CHECK(d->n >= before.n + after.n, "%s: %zu events, fewer than the %zu of the intact chunks",
				  w2, d->n, before.n + after.n))
				dvec_match_at(d, d->n - after.n, &after, after.n, w2);
			free(before.v);
			free(after.v);
		}
		walk_free(&w);
		trace_close(t);
	}
	free(copy);
}

static void stream_case(int callsite_mode)
{
	char label[64];
	snprintf(label, sizeof(label), "streams%s", callsite_mode ? " (callsite)" : "");
	char *dir = make_tmpdir();
	uint64_t t_start = mono_now();
	int rc = run_child("stream", dir, callsite_mode, NULL);
	uint64_t t_len = mono_now() - t_start;
	if (!CHECK(rc == 0, "%s: the recording child exited with %d", label, rc)) {
		rm_rf(dir);
		free(dir);
		return;
	}
	struct stream st[N_STREAMS];
	for (unsigned i = 0; i < N_STREAMS; i++) {
		gen_stream(i, &st[i]);
		if (cfgs[i].pool >= 64)
			CHECK(st[i].collisions > 0, "%s: stream %u: no two addresses share a cache slot", label, i);
	}

	struct trace *t = NULL;
	char err[512];
	if (!CHECK(trace_open(&t, dir, err, sizeof(err)) == 0, "%s: trace_open: %s", label, err)) {
		rm_rf(dir);
		free(dir);
		return;
	}
	for (size_t i = 0; i < t->n_warnings; i++)
		CHECK(0, "%s: warning: %s", label, t->warnings[i]);
	CHECK(t->n_procs == 1, "%s: %zu processes", label, t->n_procs);
	struct trace_process *p = &t->procs[0];
	CHECK(!!(p->hdr.flags & FNT_FLAG_CALLSITE) == callsite_mode, "%s: header flags %#x", label, p->hdr.flags);
	CHECK(p->hdr.chunk_size == 16384, "%s: chunk size %u", label, p->hdr.chunk_size);
	CHECK(p->n_chunks > 60, "%s: only %" PRIu64 " chunks: too few rollovers", label, p->n_chunks);
	CHECK(p->hdr.end_flags & 1, "%s: no clean end in the header", label);
	CHECK(p->hdr.lost_reentrant == 0 && p->hdr.lost_nospace == 0 && p->hdr.lost_meta == 0,
	      "%s: header counts lost events: %" PRIu64 " %" PRIu64 " %" PRIu64, label, p->hdr.lost_reentrant,
	      p->hdr.lost_nospace, p->hdr.lost_meta);
	CHECK(p->n_threads == N_STREAMS, "%s: %zu threads, fed %zu", label, p->n_threads, (size_t)N_STREAMS);

	struct walk_ctx w, wt;
	walk_collect(t, 0, &w);
	CHECK(p->damaged_bytes == 0 && p->damaged_chunks == 0 && p->missing_chunks == 0,
	      "%s: damage: %" PRIu64 " bytes, %" PRIu64 " chunks, %" PRIu64 " missing", label, p->damaged_bytes,
	      p->damaged_chunks, p->missing_chunks);
	uint64_t total = 0;
	int seen[N_STREAMS] = { 0 };
	for (size_t ti = 0; ti < w.n_threads; ti++) {
		struct trace_thread *th = &p->threads[ti];
		struct dvec *d = &w.per_thread[ti];
		int si = stream_of(d);
		char what[200];
		snprintf(what, sizeof(what), "%s: thread %u (tid %u)", label, th->serial, th->tid);
		CHECK(d->stream_ends == 1, "%s: %d STREAM_END events", what, d->stream_ends);
		if (!CHECK(si >= 0, "%s: its first entry is no stream marker", what))
			continue;
		CHECK(!seen[si]++, "%s: stream %d seen twice", what, si);
		snprintf(what, sizeof(what), "%s: stream %d (pool %u%s)", label, si, cfgs[si].pool,
			 cfgs[si].far ? ", far" : "");
		compare_stream(what, d, &st[si], callsite_mode);
		uint64_t fed = 0, lost = 0, lost_events = 0, lost_sum = 0;
		for (size_t k = 0; k < st[si].n; k++)
			st[si].s[k].dropped ? lost++ : fed++;
		CHECK(th->events == fed, "%s: thread counts %" PRIu64 " events, fed %" PRIu64, what, th->events, fed);
		CHECK(th->lost == lost, "%s: %" PRIu64 " lost, %" PRIu64 " unencodable fed", what, th->lost, lost);
		total += th->events;
		for (size_t k = 0; k < d->n; k++)
			if (d->v[k].kind == TRACE_LOST)
				lost_events++, lost_sum += d->v[k].count;
		CHECK(lost_sum == lost && (lost == 0) == (lost_events == 0), "%s: LOST records say %" PRIu64
		      " in %" PRIu64 " records, wanted %" PRIu64, what, lost_sum, lost_events, lost);
		CHECK(d->n && d->v[d->n - 1].kind == TRACE_THREAD_END && th->ended,
		      "%s: the stream does not end with THREAD_END", what);
		size_t back = 0;
		for (size_t k = 1; k < d->n; k++)
			if (d->v[k].ns < d->v[k - 1].ns && !back++)
				CHECK(0, "%s: time goes back at event %zu: %" PRIu64 " after %" PRIu64, what, k,
				      d->v[k].ns, d->v[k - 1].ns);
		if (!back)
			CHECK(1, "");
		if (d->n) {
			uint64_t span = d->v[d->n - 1].ns - d->v[0].ns;
			CHECK(span >= st[si].pause_total_ns, "%s: lasts %" PRIu64 " ns, slept %" PRIu64 " ns", what,
			      span, st[si].pause_total_ns);
			CHECK(span <= t_len + 100000000ull, "%s: lasts %" PRIu64 " ns, the child ran %" PRIu64 " ns",
			      what, span, t_len);
		}
	}
	for (unsigned i = 0; i < N_STREAMS; i++)
		CHECK(seen[i] == 1, "%s: stream %u found in %d threads", label, i, seen[i]);
	CHECK(trace_total_events(t) == total, "%s: trace_total_events %" PRIu64 ", threads sum %" PRIu64, label,
	      trace_total_events(t), total);

	/* the time-ordered walk: the same events per thread, merged by time */
	walk_collect(t, 1, &wt);
	{
		size_t back = 0;
		for (size_t k = 1; k < wt.all.n; k++)
			if (wt.all.v[k].ns < wt.all.v[k - 1].ns)
				back++;
		CHECK(back == 0, "%s: time-ordered walk goes back %zu times", label, back);
		size_t *pos = calloc(w.n_threads + 1, sizeof(*pos));
		size_t bad = 0;
		for (size_t k = 0; k < wt.all.n; k++) {
			size_t ti = (size_t)(wt.thread_of[k] - p->threads);
			if (pos[ti] >= w.per_thread[ti].n || !same_event(&wt.all.v[k], &w.per_thread[ti].v[pos[ti]]) ||
			    wt.all.v[k].ns != w.per_thread[ti].v[pos[ti]].ns)
				bad++;
			pos[ti]++;
		}
		for (size_t ti = 0; ti < w.n_threads; ti++)
			if (pos[ti] != w.per_thread[ti].n)
				bad++;
		CHECK(bad == 0, "%s: time-ordered walk differs from the thread walk in %zu places", label, bad);
		free(pos);
	}
	walk_free(&wt);

	/* each chunk alone gives its share */
	size_t len = 0;
	char path[4200];
	uint8_t *img = read_trace_file(dir, &len, path, sizeof(path));
	if (img) {
		uint64_t n_chunks;
		struct chunk_info *ci = chunk_table(img, len, &n_chunks);
		struct full full = { calloc(w.n_threads + 1, sizeof(uint32_t)), calloc(w.n_threads + 1, sizeof(struct dvec)),
				     w.n_threads };
		for (size_t ti = 0; ti < w.n_threads; ti++) {
			struct dvec cat;
			char what[200];
			full.serials[ti] = p->threads[ti].serial;
			full.ev[ti] = w.per_thread[ti];
			concat_chunks(ci, 0, n_chunks, p->threads[ti].serial, &cat);
			snprintf(what, sizeof(what), "%s: thread %u, chunks decoded one by one", label, p->threads[ti].serial);
			if (dvec_match_at(&cat, 0, &w.per_thread[ti], w.per_thread[ti].n, what))
				CHECK(cat.n == w.per_thread[ti].n, "%s: %zu events, %zu in the whole", what, cat.n,
				      w.per_thread[ti].n);
			free(cat.v);
		}
		uint64_t rng = 0x1234567 + (uint64_t)callsite_mode;
		truncation_tests(label, img, len, ci, n_chunks, &full, &rng);
		corruption_tests(label, img, len, ci, n_chunks, &full, &rng, 40);
		free(full.serials);
		free(full.ev);
		chunk_table_free(ci, n_chunks);
		free(img);
	}

	walk_free(&w);
	trace_close(t);
	for (unsigned i = 0; i < N_STREAMS; i++)
		free(st[i].s);
	rm_rf(dir);
	free(dir);
}

static int clock_cb(void *arg, const struct trace_event *ev)
{
	struct dvec *d = arg;
	if (ev->kind == TRACE_ENTRY || ev->kind == TRACE_EXIT)
		dvec_push(d, (struct dev){ .kind = ev->kind, .addr = ev->addr, .ns = ev->ns });
	return 0;
}

static void clock_case(const char *clock)
{
	char *dir = make_tmpdir();
	uint64_t wall = real_now();
	int rc = run_child("clock", dir, 0, clock);
	struct trace *t = NULL;
	char err[512];
	if (!CHECK(rc == 0, "clock %s: the child exited with %d", clock, rc) ||
	    !CHECK(trace_open(&t, dir, err, sizeof(err)) == 0, "clock %s: trace_open: %s", clock, err)) {
		rm_rf(dir);
		free(dir);
		return;
	}
	unsigned want = !strcmp(clock, "tsc") ? FNT_CLOCK_TSC : FNT_CLOCK_MONOTONIC;
	CHECK(t->procs[0].hdr.clock == want, "clock %s: header says clock %u", clock, t->procs[0].hdr.clock);
	struct dvec d = { 0 };
	trace_walk(t, 1, clock_cb, &d);
	if (CHECK(d.n == 2 && d.v[0].kind == TRACE_ENTRY && d.v[1].kind == TRACE_EXIT,
		  "clock %s: %zu events, wanted an entry and an exit", clock, d.n)) {
		uint64_t dur = d.v[1].ns - d.v[0].ns;
		CHECK(dur >= 50000000ull && dur <= 500000000ull, "clock %s: a 50 ms sleep lasted %" PRIu64 " ns",
		      clock, dur);
		uint64_t real = trace_ns_to_real(t, d.v[0].ns);
		int64_t off = (int64_t)(real - wall);
		CHECK(off > -3000000000ll && off < 3000000000ll,
		      "clock %s: the first event is at real time %" PRIu64 ", %" PRId64 " ns from the wall clock",
		      clock, real, off);
	}
	free(d.v);
	trace_close(t);
	rm_rf(dir);
	free(dir);
}

/* a thread's decoded ENTRY/EXIT events: exactly the last ones the stream
 * fed (dropped ones aside)?  Returns how many, or -1 if they are not a tail */
static long tail_of(const struct dvec *d, const struct stream *st)
{
	size_t m = 0, k = st->n;
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].kind == TRACE_ENTRY || d->v[i].kind == TRACE_EXIT)
			m++;
	for (size_t i = d->n; i-- > 0;) {
		const struct dev *e = &d->v[i];
		if (e->kind != TRACE_ENTRY && e->kind != TRACE_EXIT)
			continue;
		while (k > 0 && st->s[k - 1].dropped)
			k--;
		if (k == 0)
			return -1;
		const struct step *s = &st->s[--k];
		struct dev want = { .kind = s->is_exit ? TRACE_EXIT : TRACE_ENTRY, .addr = s->addr };
		if (!same_event(e, &want))
			return -1;
	}
	return (long)m;
}

/*
 * The flight recorder: the same streams into rings of 3 chunks of 16K.
 * Every thread's trace must be exactly a tail of what it fed (the ring
 * rewrites whole chunks, so the tail starts at a chunk boundary), shorter
 * than the stream for the long ones, and the file must hold no more than
 * 3 chunks per thread plus the meta chunks.
 */
static void ring_case(void)
{
	const char *label = "ring";
	char *dir = make_tmpdir();
	ring_env = "3";
	int rc = run_child("stream", dir, 0, NULL);
	ring_env = NULL;
	struct trace *t = NULL;
	char err[512];
	if (!CHECK(rc == 0, "%s: the recording child exited with %d", label, rc) ||
	    !CHECK(trace_open(&t, dir, err, sizeof(err)) == 0, "%s: trace_open: %s", label, err)) {
		rm_rf(dir);
		free(dir);
		return;
	}
	struct stream st[N_STREAMS];
	for (unsigned i = 0; i < N_STREAMS; i++)
		gen_stream(i, &st[i]);
	for (size_t i = 0; i < t->n_warnings; i++)
		CHECK(0, "%s: warning: %s", label, t->warnings[i]);
	struct trace_process *p = &t->procs[0];
	CHECK(p->hdr.flags & FNT_FLAG_RING, "%s: header flags %#x", label, p->hdr.flags);
	CHECK(p->hdr.reserved[FNT_RES_RING_CHUNKS] == 3, "%s: ring of %" PRIu64, label,
	      p->hdr.reserved[FNT_RES_RING_CHUNKS]);
	CHECK(p->n_threads == N_STREAMS, "%s: %zu threads", label, p->n_threads);
	CHECK(p->n_chunks <= 3 * N_STREAMS + 2, "%s: %" PRIu64 " chunks in the file", label, p->n_chunks);
	struct walk_ctx w;
	walk_collect(t, 0, &w);
	CHECK(p->damaged_bytes == 0 && p->missing_chunks == 0, "%s: %" PRIu64 " damaged bytes, %" PRIu64
	      " missing chunks", label, p->damaged_bytes, p->missing_chunks);
	unsigned wrapped = 0, matched = 0;
	for (size_t i = 0; i < w.n_threads; i++) {
		long best = -1;
		unsigned which = 0;
		for (unsigned k = 0; k < N_STREAMS && best < 0; k++)
			if ((best = tail_of(&w.per_thread[i], &st[k])) > 0)
				which = k;
		if (!CHECK(best > 0, "%s: thread %zu: its %zu events are no stream's tail", label, i,
			   w.per_thread[i].n))
			continue;
		matched++;
		size_t fed = 0;
		for (size_t k = 0; k < st[which].n; k++)
			fed += !st[which].s[k].dropped;
		if ((size_t)best < fed) {
			wrapped++;
			CHECK(p->threads[i].first_seq > 0, "%s: thread %zu lost its head but starts at seq 0", label, i);
			CHECK((size_t)best > fed / 50, "%s: thread %zu kept only %ld of %zu", label, i, best, fed);
		}
	}
	CHECK(matched == N_STREAMS && wrapped >= 4, "%s: %u threads matched, %u wrapped", label, matched, wrapped);
	walk_free(&w);
	for (unsigned i = 0; i < N_STREAMS; i++)
		free(st[i].s);
	trace_close(t);
	rm_rf(dir);
	free(dir);
}

/* lock_take (runtime/tracefile.c), the meta and spare-chunk locks that
 * fork_prepare takes: a thread taking a lock it holds (a signal handler
 * that forks, interrupting its own thread under it) is refused at once,
 * not after the 200 ms bound; another thread waits for the holder. */
int lock_take(int *lock);
void lock_release(int *lock);
static int lock_word;

static double ms_since(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

static volatile int lock_released;

/* takes the lock, trying again while lock_take gives up (its bounds), for
 * 10 s at most: 1 once it held it, after the holder let go */
static void *lock_waiter(void *arg)
{
	struct timespec t0;
	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ms_since(&t0) < 10000) {
		if (!lock_take(&lock_word)) {
			int after = lock_released;
			lock_release(&lock_word);
			return (void *)(intptr_t)(after ? 1 : 2);
		}
	}
	return NULL;
}

static void locks_case(void)
{
	double ms = 1e9;
	int again = 0;
	CHECK(lock_take(&lock_word) == 0, "locks: a free lock is taken");
	/* the fastest of five tries: a preemption may stretch one (the old
	 * flag gave up after 100,000 yields or 200 ms: 60 ms on an idle
	 * machine, minutes under load) */
	for (int i = 0; i < 5; i++) {
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		again |= lock_take(&lock_word) != -1;
		double m = ms_since(&t0);
		if (m < ms)
			ms = m;
	}
	CHECK(!again && ms < 5, "locks: taken again by its own holder: %s, after %.1f ms (want -1 at once)",
	      again ? "taken" : "-1", ms);
	pthread_t th;
	void *got;
	CHECK(!pthread_create(&th, NULL, lock_waiter, NULL), "locks: a second thread");
	struct timespec nap = { 0, 5000000 };
	nanosleep(&nap, NULL);
	lock_released = 1;
	lock_release(&lock_word);
	pthread_join(th, &got);
	CHECK((intptr_t)got == 1, "locks: another thread takes it once its holder let go (%s)",
	      (intptr_t)got == 2 ? "it took it while held" : "never");
}

/* fnt_chunk_events (the events of a chunk that could not be written,
 * counted as lost): every kind of record is stepped over, an exception's
 * UNWIND_TO and LANDING too (it stopped at them, counting too few), and a
 * CALLSITE, LOST, UNWIND or FORK as one varint (it read three, once
 * SWITCH_OPEN shared their case, and lost its way in the events after) */
static uint8_t *put_rec(uint8_t *p, uint64_t head, const uint64_t *v, unsigned n)
{
	unsigned len = fnt_varint_len(head);
	uint64_t x = fnt_varint_pack(head, len);
	memcpy(p, &x, len);
	p += len;
	for (unsigned i = 0; i < n; i++) {
		len = fnt_varint_len(v[i]);
		x = fnt_varint_pack(v[i], len);
		memcpy(p, &x, len);
		p += len;
	}
	return p;
}

static void chunk_events_case(void)
{
	uint8_t chunk[4096] = { 0 };
	uint8_t *p = chunk + FNT_CHUNK_HDR_SIZE;
#define EXT(d, e) ((uint64_t)(d) << 8 | (uint64_t)(e) << 2 | FNT_K_EXT)
	const uint64_t none[1] = { 0 }, addr[1] = { 0x401000 }, pad[1] = { 0x84 }, one[1] = { 0x3f00 },
		       open3[3] = { 0x7f0000001000, 12, 3 }, stack3[4] = { 3, 0x401010, 0x22, 0x80 };
	p = put_rec(p, 5u << 8 | 3u << 2 | FNT_K_ENTRY, none, 0);
	p = put_rec(p, EXT(7, FNT_EXT_UNWIND_TO), addr, 1);
	p = put_rec(p, EXT(0, FNT_EXT_LANDING), pad, 1);
	p = put_rec(p, 2u << 8 | 3u << 2 | FNT_K_EXIT, none, 0);
	p = put_rec(p, 1u << 8 | 4u << 2 | FNT_K_ENTRY, none, 0);
	p = put_rec(p, EXT(1, FNT_EXT_CALLSITE), one, 1);
	p = put_rec(p, 1u << 8 | 4u << 2 | FNT_K_EXIT, none, 0);
	p = put_rec(p, EXT(3, FNT_EXT_LOST), one, 1);
	p = put_rec(p, EXT(3, FNT_EXT_UNWIND), one, 1);
	p = put_rec(p, EXT(3, FNT_EXT_SWITCH), addr, 1);
	p = put_rec(p, EXT(3, FNT_EXT_SWITCH_OPEN), open3, 3);
	p = put_rec(p, EXT(3, FNT_EXT_STACK), stack3, 4);
	p = put_rec(p, 9u << 8 | 2u << 2 | FNT_K_NEW, addr, 1);
	p = put_rec(p, EXT(0, FNT_EXT_FORK), NULL, 0);
	memset(p, 0x5a, 8);                    /* its ticks, then the forking thread */
	p = put_rec(p + 8, 1234, NULL, 0);
	p = put_rec(p, 1u << 8 | 4u << 2 | FNT_K_ENTRY, none, 0);
	CHECK(fnt_chunk_events(chunk, sizeof(chunk)) == 6, "fnt_chunk_events past every kind of record: %llu",
	      (unsigned long long)fnt_chunk_events(chunk, sizeof(chunk)));
#undef EXT
}

int main(void)
{
	const char *child = getenv("FNT_TEST_CHILD");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (child) {
		if (!strcmp(child, "stream"))
			return child_stream();
		if (!strcmp(child, "clock"))
			return child_clock();
		fprintf(stderr, "unknown FNT_TEST_CHILD '%s'\n", child);
		return 2;
	}
	unsetenv(FNTRACE_ENV_DISABLE);   /* read by the runtime already; children start clean */
	locks_case();
	chunk_events_case();
	stream_case(0);
	stream_case(1);
	ring_case();
	clock_case("tsc");
	clock_case("monotonic");
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
