/*
 * runtime.c - everything in the runtime that is not the hot path: start-up,
 * the trace file and its chunks, the slow paths of the hooks, the meta
 * stream, threads, fork and exit.
 *
 * Crash safety comes from the file itself: every buffer is a MAP_SHARED
 * mapping of the trace file, so what a thread has stored is in the page cache
 * the moment it is stored and outlives the process, whatever kills it.  There
 * is no flush and no signal handler.
 *
 * The runtime never exits, aborts or blocks its host: when something fails
 * (no disk space, no file) it stops recording on that thread and counts the
 * events it drops in the file header.  Its one thread of its own prepares
 * chunks ahead (see "spare chunks"); the program never waits for it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "fntrace.h"
#include "runtime/runtime.h"
#include "runtime/event.h"

uint32_t fnt_flags FNT_HIDDEN;
int fnt_use_tsc FNT_HIDDEN;
int fnt_paused FNT_HIDDEN;
uint32_t fnt_ring_chunks FNT_HIDDEN;
uint32_t fnt_file_gen FNT_HIDDEN;
FNT_EXPORT volatile int fnt__active;

static uint32_t chunk_size = FNT_DEFAULT_CHUNK;
static char trace_dir[4096];
static int state;                     /* 0 not yet, 1 recording, 2 off */
static pthread_key_t thread_key;
unsigned fnt_file_mode = 0600;

/* The process's trace file (struct fnt_trace_file in runtime.h).  A vfork
 * child, which runs on this memory while the parent's other threads go on
 * writing main_file, has a file of its own (vfork.c), named by its thread
 * state; every slow path writes the file of the context it runs in. */
static struct fnt_trace_file main_file = { .fd = -1 };

static inline struct fnt_trace_file *cur_file(void)
{
	struct fnt_trace_file *f = fnt_self.file;
	return likely(!f) ? &main_file : f;
}

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

static uint32_t gettid_(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* One clock sample: ticks read on both sides of CLOCK_MONOTONIC, averaged;
 * the tightest of a few such windows, so that a sample an interrupt or the
 * scheduler cut in two is never used (the conversion of the first seconds
 * rests on samples 1 ms apart: 10 us off in one was 1 %). */
static void clock_sample(uint64_t *ticks, uint64_t *mono, uint64_t *real)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t a = fnt_now(), m = fnt_mono_ns(), b = fnt_now();
		if (b - a < best) {
			best = b - a;
			*ticks = a + (b - a) / 2;
			*mono = m;
		}
		if (!fnt_use_tsc)
			break;          /* ticks are CLOCK_MONOTONIC ns: one read is exact */
	}
	if (real)
		*real = real_ns();
}

/* The TSC is used when the kernel itself uses it as its clocksource (it then
 * is invariant and synchronised across CPUs); FNTRACE_CLOCK overrides. */
static int tsc_usable(void)
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

/* Count n lost events under a counter of the file header (its offset): the
 * file of this context, or, for a vfork child that could not create one,
 * its parent's. */
#define count_lost(field, n) count_lost_at(offsetof(struct fnt_file_header, field), n)
static void count_lost_at(size_t field, uint64_t n)
{
	struct fnt_file_header *h = cur_file()->hdr ? cur_file()->hdr : main_file.hdr;
	if (h)
		__atomic_fetch_add((uint64_t *)((char *)h + field), n, __ATOMIC_RELAXED);
}

/* Make sure [off, off+len) has blocks behind it, so that stores through the
 * mapping can never raise SIGBUS for lack of space.  Never shrinks the file. */
static int reserve_space(off_t off, off_t len)
{
	struct fnt_trace_file *tf = cur_file();
	static const char zeros[65536];
	if (!fnt_fsize_allows(off + len))   /* past RLIMIT_FSIZE the kernel sends SIGXFSZ */
		return -1;
	if (fallocate(tf->fd, 0, off, len) == 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return -1;
	for (off_t done = 0; done < len;) {
		size_t n = (size_t)(len - done < (off_t)sizeof(zeros) ? len - done : (off_t)sizeof(zeros));
		ssize_t w = pwrite(tf->fd, zeros, n, off + done);
		if (w <= 0)
			return -1;
		done += w;
	}
	return 0;
}

/* Hand out the next chunk of the file and map it.  Its header is filled by
 * the caller; the magic goes in last. */
/* The program may close our descriptor (daemons close every fd) and reuse
 * its number for a file of its own: before each allocation, check that the
 * fd is still the trace file, and reopen the trace by path if it is not.
 * Never write through an fd that is not ours. */
static int trace_fd_check(void)
{
	struct fnt_trace_file *tf = cur_file();
	struct stat st;
	int fd;
	if (tf->fd >= 0 && !fstat(tf->fd, &st) && st.st_ino == tf->ino && st.st_dev == tf->dev)
		return 0;
	fd = fnt_fd_high(open(tf->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC));   /* never a low number, never through a link */
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_ino != tf->ino || st.st_dev != tf->dev) {
		close(fd);
		return -1;
	}
	tf->fd = fd;
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Fault in [m, m+len) for writing in one system call, so the hot path takes
 * no page fault.  MAP_POPULATE would only read-fault a shared mapping, leaving
 * a write-protect fault per page for the hooks.  Failure is harmless: the
 * pages then fault one by one. */
static void populate(void *m, size_t len)
{
	static int unsupported;         /* kernels before 5.14 */
	if (!__atomic_load_n(&unsupported, __ATOMIC_RELAXED) && madvise(m, len, MADV_POPULATE_WRITE) &&
	    errno == EINVAL)
		__atomic_store_n(&unsupported, 1, __ATOMIC_RELAXED);
}

/* Hand out the next chunk of the file, with blocks behind it, mapped and
 * populated.  Its magic stays zero until chunk_seal. */
static uint8_t *chunk_new(off_t *off_out)
{
	struct fnt_trace_file *tf = cur_file();
	if (trace_fd_check())
		return NULL;
	uint64_t idx = __atomic_fetch_add(&tf->hdr->next_chunk, 1, __ATOMIC_RELAXED);
	off_t off = (off_t)FNT_HEADER_SIZE + (off_t)idx * chunk_size;
	void *m;

	if (reserve_space(off, chunk_size))
		return NULL;
	m = mmap(NULL, chunk_size, PROT_READ | PROT_WRITE, MAP_SHARED, tf->fd, off);
	if (m == MAP_FAILED)
		return NULL;
	populate(m, chunk_size);
	*off_out = off;
	return m;
}

/* A chunk that will never be started: its blocks go back, it reads as zeros
 * (never started) and is skipped by readers. */
static void chunk_discard(uint8_t *m, off_t off)
{
	struct fnt_trace_file *tf = cur_file();
	if (!trace_fd_check())
		fallocate(tf->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, chunk_size);
	munmap(m, chunk_size);
}

static int lock_take(int *lock)
{
	for (int i = 0; i < 100000; i++) {
		if (!__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
			return 0;
		if (i > 100)
			sched_yield();
	}
	return -1;
}

static void lock_release(int *lock)
{
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

/* ---- spare chunks, prepared ahead by a helper thread ----
 *
 * Faulting in a fresh page of the trace file costs the kernel microseconds
 * (allocating and zeroing it, page cache and file system bookkeeping): at
 * about 2 bytes per event that is 4-5 ns per traced call, the largest cost
 * after the two clock reads.  A helper thread keeps SPARES chunks mapped and
 * populated, so a thread that fills its chunk takes a ready one and the
 * kernel's work runs on another CPU when there is one.
 *
 * A spare is an ordinary chunk whose magic is still zero: if the process
 * dies, readers skip it; at exit its blocks are given back.  Spares are made
 * and taken in file order, and a thread never takes one that lies before its
 * current chunk: each thread's chunks stay in increasing file order, so a
 * truncated copy of the file loses only the end of each thread's stream.  A
 * spare that falls behind (a thread mapped a chunk itself while the helper
 * was busy) waits for a thread that is further behind, until it has been
 * passed over twice; then the helper gives its blocks back.  The helper blocks
 * every signal, runs no instrumented code, calls the kernel without holding
 * spare_lock, and exists only in the process image whose constructor started
 * it (a forked child maps its chunks itself, as every thread does when no
 * spare is ready or there is no helper: see helper_wanted).
 */
#define SPARES 4
struct spare { uint8_t *map; off_t off; int passed; };
static struct spare spares[SPARES];    /* ready, in file order */
static struct spare junk[SPARES];      /* fell behind, to discard */
static int spare_n, junk_n, spare_closed;      /* under spare_lock */
static int spare_lock;
static uint32_t spare_wake;            /* futex word: bumped when a spare is taken */
static int helper_running;             /* a helper serves this process image */

/* the first spare past file offset `after` (-1: any) */
static uint8_t *spare_take(off_t after, off_t *off)
{
	uint8_t *m = NULL;
	int i = 0;

	if (!__atomic_load_n(&helper_running, __ATOMIC_ACQUIRE) || lock_take(&spare_lock))
		return NULL;
	while (i < spare_n && spares[i].off <= after)
		spares[i++].passed++;
	if (i < spare_n) {
		m = spares[i].map;
		*off = spares[i].off;
		memmove(spares + i, spares + i + 1, (size_t)(spare_n - i - 1) * sizeof(spares[0]));
		spare_n--;
	}
	/* a spare behind this thread may suit a thread further behind; one
	 * passed over twice (or blocking the helper) is given up */
	while (spare_n && (spares[0].passed >= 2 || (!m && spare_n == SPARES)) && junk_n < SPARES) {
		junk[junk_n++] = spares[0];
		memmove(spares, spares + 1, (size_t)(spare_n - 1) * sizeof(spares[0]));
		spare_n--;
	}
	lock_release(&spare_lock);
	/* the helper starts with the first chunk that fills up: a process
	 * that never fills one has no spares to give back */
	if (after >= 0 || __atomic_load_n(&spare_wake, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&spare_wake, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &spare_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return m;
}

static void *helper_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "fntrace-spare", 0, 0, 0);
	for (;;) {
		uint32_t seen = __atomic_load_n(&spare_wake, __ATOMIC_ACQUIRE);
		struct spare old[SPARES];
		int want = 0, n_old = 0;
		off_t off;
		uint8_t *m;

		if (!lock_take(&spare_lock)) {
			want = seen && !spare_closed && spare_n < SPARES;
			n_old = junk_n;
			memcpy(old, junk, sizeof(old));
			junk_n = 0;
			lock_release(&spare_lock);
		}
		while (n_old-- > 0)
			chunk_discard(old[n_old].map, old[n_old].off);
		/* on failure (disk full) try again when the next spare is wanted */
		if (want && (m = chunk_new(&off))) {
			if (!lock_take(&spare_lock)) {
				if (!spare_closed && spare_n < SPARES) {
					spares[spare_n].map = m;
					spares[spare_n].off = off;
					spares[spare_n].passed = 0;
					spare_n++;
					m = NULL;
				}
				lock_release(&spare_lock);
			}
			if (m)
				chunk_discard(m, off);
			continue;
		}
		syscall(SYS_futex, &spare_wake, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
	}
	return NULL;
}

/* The helper pays off only when it finds a CPU nobody else needs; with one
 * or two CPUs it competes with the program it serves and adds the cost of
 * handing chunks between CPUs (measured: about 2 ns more CPU per call on the
 * 2-CPU bench machine, no reliable wall-time gain).  Its gain on bigger
 * machines is not measured yet, and it is one more thread in the host, so
 * it is opt-in: FNTRACE_PREFAULT=1 turns it on. */
static int helper_wanted(void)
{
	const char *env = getenv(FNTRACE_ENV_PREFAULT);
	if (fnt_ring_chunks)    /* a full ring takes no new chunk: spares would only grow the file */
		return 0;
	if (fnt_drain_wanted())         /* record drains a ring: no page of the file is mapped */
		return 0;
	return env && *env && strcmp(env, "0") != 0;
}

/* Called from the constructor, never from a hook: pthread_create may call
 * malloc, which the program may have instrumented and be inside of. */
static void helper_start(void)
{
	pthread_attr_t attr;
	pthread_t th;
	sigset_t all, old;

	if (state != 1 || helper_running || !helper_wanted() || pthread_attr_init(&attr))
		return;
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);   /* the helper inherits it: the program's signals are not for it */
	if (!pthread_create(&th, &attr, helper_main, NULL))
		__atomic_store_n(&helper_running, 1, __ATOMIC_RELEASE);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

/* at exit: no more spares; give back the blocks of the unused ones */
static void spares_close(void)
{
	if (lock_take(&spare_lock))
		return;
	spare_closed = 1;
	while (spare_n) {
		spare_n--;
		chunk_discard(spares[spare_n].map, spares[spare_n].off);
	}
	while (junk_n) {
		junk_n--;
		chunk_discard(junk[junk_n].map, junk[junk_n].off);
	}
	lock_release(&spare_lock);
}

/* A chunk for a thread or the meta stream whose current chunk is at `after`
 * (-1: none): a spare if one is ready. */
static uint8_t *chunk_map(off_t after, off_t *off_out)
{
	if (unlikely(fnt_self.file))    /* a vfork child: the spares are its parent's */
		return chunk_new(off_out);
	uint8_t *m = spare_take(after, off_out);
	return m ? m : chunk_new(off_out);
}

/* An event chunk: a slot of the ring that `fntrace record` drains
 * (drain.c), else a chunk of the file.  Either way its file offset is taken
 * and its blocks reserved here, so the file is laid out as without the ring
 * and the drain's copy can never fail for lack of space. */
static uint8_t *event_chunk(off_t after, off_t *off_out)
{
	struct fnt_trace_file *tf = cur_file();
	if (!fnt_drain_wanted() || fnt_self.file)      /* the ring is a vfork child's parent's */
		return chunk_map(after, off_out);
	if (trace_fd_check())
		return NULL;
	uint64_t idx = __atomic_fetch_add(&tf->hdr->next_chunk, 1, __ATOMIC_RELAXED);
	off_t off = (off_t)FNT_HEADER_SIZE + (off_t)idx * chunk_size;
	uint8_t *m;
	if (reserve_space(off, chunk_size))
		return NULL;
	m = fnt_drain_take((uint64_t)off);
	if (!m) {               /* record is gone or far behind: the file, as without it */
		m = mmap(NULL, chunk_size, PROT_READ | PROT_WRITE, MAP_SHARED, tf->fd, off);
		if (m == MAP_FAILED)
			return NULL;
		populate(m, chunk_size);
	}
	*off_out = off;
	return m;
}

static void chunk_seal(struct fnt_chunk_header *ch)
{
	__atomic_store_n(&ch->magic, FNT_CHUNK_MAGIC, __ATOMIC_RELEASE);
}

/* ---- meta stream ---- */

static int meta_lock_take(void)
{
	struct fnt_trace_file *tf = cur_file();
	return lock_take(&tf->meta_lock);
}

int fnt_meta_append(unsigned type, const void *a, size_t alen, const void *b, size_t blen)
{
	struct fnt_trace_file *tf = cur_file();
	size_t need = (4 + alen + blen + 7) & ~(size_t)7;
	uint32_t head = (uint32_t)((alen + blen) << 8 | type);
	int ret = -1;

	if (state != 1 || need > chunk_size / 2)
		goto drop;
	if (meta_lock_take())
		goto drop;
	if (!tf->meta_pos || tf->meta_pos + need + 4 > tf->meta_end) {
		off_t off;
		uint8_t *m = chunk_map(tf->meta_seq ? tf->meta_chunk_off : -1, &off);
		if (!m)
			goto unlock;
		if (tf->meta_chunk)
			munmap(tf->meta_chunk, chunk_size);
		struct fnt_chunk_header *ch = (void *)m;
		ch->type = FNT_CHUNK_META;
		ch->seq = tf->meta_seq++;
		clock_sample(&ch->base_ticks, &ch->mono_ns, NULL);
		chunk_seal(ch);
		tf->meta_chunk = m;
		tf->meta_chunk_off = off;
		tf->meta_pos = m + FNT_CHUNK_HDR_SIZE;
		tf->meta_end = m + chunk_size;
	}
	memcpy(tf->meta_pos + 4, a, alen);
	if (blen)
		memcpy(tf->meta_pos + 4 + alen, b, blen);
	__atomic_store_n((uint32_t *)tf->meta_pos, head, __ATOMIC_RELEASE);
	tf->meta_pos += need;
	ret = 0;
unlock:
	__atomic_store_n(&tf->meta_lock, 0, __ATOMIC_RELEASE);
drop:
	if (ret)
		count_lost(lost_meta, 1);
	return ret;
}

/* ---- event writing, rare cases ---- */

static int thread_chunk_start(struct fnt_thread *t);

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	unsigned len = fnt_varint_len(v);
	uint64_t x = fnt_varint_pack(v, len);
	memcpy(p, &x, 8);
	return p + len;
}

static inline uint64_t ext_head(uint64_t d, enum fnt_ext e)
{
	return d << 8 | (uint64_t)e << 2 | FNT_K_EXT;
}

/* Absolute time: the 8-byte body goes first, then the one-byte head, so a
 * reader never sees the head without its body. */
static uint8_t *put_time(uint8_t *p, uint64_t ticks)
{
	memcpy(p + 1, &ticks, 8);
	uint64_t x = fnt_varint_pack(ext_head(0, FNT_EXT_TIME), 1);
	*(volatile uint8_t *)p = (uint8_t)x;
	return p + 9;
}

static void write_rare(struct fnt_thread *t, uint64_t now, uint64_t d, uintptr_t fn, int is_exit)
{
	uint8_t *p = t->pos;
	unsigned slot = fnt_slot(fn);

	if (d >= (1ull << 47)) {        /* a long pause, or a clock that went back */
		p = put_time(p, now);
		d = 0;
	}
	t->last = now;
	if ((t->cache[slot] & ~FNT_CACHE_TAG) == fn) {    /* (a function with triggers is tagged) */
		p = put_varint(p, d << 8 | (uint64_t)slot << 2 | (is_exit ? FNT_K_EXIT : FNT_K_ENTRY));
	} else {
		uint64_t zz = fnt_zigzag((int64_t)(fn - t->prev_new));
		if (zz > FNT_VARINT_MAX || !fn || fn >= (1ull << 57)) {   /* not a user-space address: the reader would reject it */
			t->lost++;
			t->pos = p;
			return;
		}
		p = put_varint(p, d << 8 | (uint64_t)(is_exit ? 1 : 0) << 2 | FNT_K_NEW);
		p = put_varint(p, zz);
		t->cache[slot] = fn;
		t->prev_new = fn;
	}
	t->pos = p;
}

static void write_callsite(struct fnt_thread *t, uintptr_t fn, uintptr_t site)
{
	uint64_t zz = fnt_zigzag((int64_t)(site - fn));
	if (zz > FNT_VARINT_MAX)
		zz = 0;
	uint8_t *p = put_varint(t->pos, ext_head(0, FNT_EXT_CALLSITE));
	t->pos = put_varint(p, zz);
}

/* entry/exit bookkeeping shared by the rare path and the slow path; 0
 * when a trigger left the event out (triggers: every event of a function
 * with one comes here, see FNT_CACHE_TAG) */
static int finish_event_g(struct fnt_thread *t, uint64_t now, uintptr_t fn, uintptr_t site, int is_exit,
			  const struct fnt_trig **after)
{
	const struct fnt_trig *g = NULL;
	if (unlikely(now - t->last >= (fnt_use_tsc ? FNT_GAP_TICKS : FNT_GAP_NS))) {
		/* not this thread: a hand-made vfork's child, given a state and
		 * file of its own, or else dropped (coro.c) */
		int foreign = fnt_foreign_event(t, is_exit);
		if (foreign == 1 || (foreign == 2 && fnt_thread_room(t, 64)))
			return 0;
	}
	if (unlikely(fnt_trig_flags & FNT_TRIG_RARE) && (g = fnt_trigger_find(fn)) != NULL &&
	    fnt_trigger_before(t, g, now, fn, is_exit))
		return 0;
	write_rare(t, now, now - t->last, fn, is_exit);
	if (is_exit) {
		t->depth--;
	} else {
		t->depth++;
		if (fnt_flags & FNT_FLAG_CALLSITE)
			write_callsite(t, fn, site);
	}
	if (after)
		*after = g;         /* the caller adds its ARGS/RETVAL record first */
	else if (g)
		fnt_trigger_after(t, g, fn, is_exit);
	return 1;
}

static int finish_event(struct fnt_thread *t, uint64_t now, uintptr_t fn, uintptr_t site, int is_exit)
{
	return finish_event_g(t, now, fn, site, is_exit, NULL);
}

void fnt_mono_event(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit)
{
	finish_event(t, fnt_now(), fn, site, is_exit);
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

const uint8_t fnt_varint_len_table[65] = {
	1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3,
	4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6,
	7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10,
};

void fnt_rare_event(struct fnt_thread *t, uint64_t now, uintptr_t fn, uintptr_t site, int is_exit)
{
	finish_event(t, now, fn, site, is_exit);
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

int fnt_put_ext(struct fnt_thread *t, unsigned ext, const uint8_t *body, size_t len)
{
	uint8_t *p = t->pos;
	unsigned vl = fnt_varint_len(len);
	if (!p || !t->chunk || p + 1 + vl + len + 8 > t->chunk + chunk_size)
		return -1;
	/* body first, the one-byte head last: a reader never sees a head
	 * without its body */
	uint64_t x = fnt_varint_pack(len, vl);
	memcpy(p + 1, &x, 8);
	memcpy(p + 1 + vl, body, len);
	x = fnt_varint_pack(ext_head(0, (enum fnt_ext)ext), 1);
	*(volatile uint8_t *)p = (uint8_t)x;
	t->pos = p + 1 + vl + len;
	return 0;
}

int fnt_event_ext(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit, unsigned ext, const uint8_t *body,
		  size_t len)
{
	struct fnt_trace_file *tf = cur_file();
	int32_t depth = t->depth;
	const struct fnt_trig *g = NULL;
	/* room for the event (at most 9 + 9 + 16 bytes) and the record, in
	 * one chunk: the record must follow its event */
	if (state == 1 && t->state == FNT_T_ACTIVE && t->pid == tf->pid && t->chunk &&
	    t->pos + 48 + len > t->limit + FNT_CHUNK_SLACK - 8) {
		if (thread_chunk_start(t)) {
			t->state = FNT_T_OFF;
			count_lost(lost_nospace, 1);
			return -1;
		}
	}
	if (t->pos && t->pos < t->limit && state == 1 && t->state == FNT_T_ACTIVE && t->pid == tf->pid) {
		if (!finish_event_g(t, fnt_now(), fn, site, is_exit, &g))
			return -1;
	} else {
		fnt_slow_event(t, fn, site, is_exit);   /* releases the guard */
		t->busy = 1;
	}
	if (t->depth == depth)
		return -1;
	fnt_put_ext(t, ext, body, len);
	if (g)
		fnt_trigger_after(t, g, fn, is_exit);
	return 0;
}

/* an EXT record whose body is one varint (UNWIND, SWITCH); 0 written, -1 not */
static int put_ext_value(struct fnt_thread *t, unsigned ext, uint64_t value)
{
	struct fnt_trace_file *tf = cur_file();
	if (state != 1 || t->state != FNT_T_ACTIVE || t->pid != tf->pid || !t->chunk)
		return -1;
	if (t->pos >= t->limit && thread_chunk_start(t))
		return -1;
	uint64_t now = fnt_now(), d = now - t->last;
	if (d >= (1ull << 47)) {
		t->pos = put_time(t->pos, now);
		d = 0;
	}
	t->last = now;
	t->pos = put_varint(t->pos, ext_head(d, ext));
	t->pos = put_varint(t->pos, value);
	return 0;
}

void fnt_put_unwind(struct fnt_thread *t, uint32_t n)
{
	if (!put_ext_value(t, FNT_EXT_UNWIND, n))
		t->depth -= (int32_t)n;
}

void fnt_put_switch(struct fnt_thread *t, uintptr_t stack)
{
	put_ext_value(t, FNT_EXT_SWITCH, stack);
}

static void put_thread_name(struct fnt_thread *t)
{
	char name[17] = "";
	uint8_t len;
	prctl(PR_GET_NAME, name, 0, 0, 0);
	len = (uint8_t)strnlen(name, 16);
	t->pos[1] = len;
	memcpy(t->pos + 2, name, len);
	uint64_t x = fnt_varint_pack(ext_head(0, FNT_EXT_THREAD_NAME), 1);
	*(volatile uint8_t *)t->pos = (uint8_t)x;
	t->pos += 2 + len;
}

static void put_lost(struct fnt_thread *t)
{
	if (!t->lost)
		return;
	uint8_t *p = put_varint(t->pos, ext_head(0, FNT_EXT_LOST));
	t->pos = put_varint(p, t->lost);
	t->lost = 0;
}

static void put_thread_end(struct fnt_thread *t)
{
	uint64_t now = fnt_now();
	uint64_t d = now - t->last;
	if (d >= (1ull << 47)) {
		t->pos = put_time(t->pos, now);
		d = 0;
	}
	t->last = now;
	t->pos = put_varint(t->pos, ext_head(d, FNT_EXT_THREAD_END));
}

/* Free the disk blocks of a chunk past `used` bytes; they read as zeros
 * again, which is what an unused tail must be. */
static void punch_tail(int64_t chunk_off, uintptr_t used)
{
	struct fnt_trace_file *tf = cur_file();
	uintptr_t from = (used + 4095) & ~(uintptr_t)4095;
	if (from < chunk_size && !trace_fd_check())
		fallocate(tf->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, chunk_off + (off_t)from,
			  (off_t)(chunk_size - from));
}

/* Give back the unused tail of a finished chunk (its bytes read as zeros,
 * which is what an unused tail must be), then unmap it. */
static void chunk_release(struct fnt_thread *t, int punch)
{
	struct fnt_trace_file *tf = cur_file();
	if (!t->chunk)
		return;
	if (fnt_drain_owns(t->chunk)) {
		fnt_drain_release(t->chunk);    /* record copies it out, only its used part */
	} else {
		if (punch && state == 1 && t->pid == tf->pid)
			punch_tail(t->chunk_off, (uintptr_t)(t->pos - t->chunk) + 8);
		munmap(t->chunk, chunk_size);
	}
	t->chunk = t->pos = t->limit = NULL;
}

/* the fork the child's first chunk notes (FNT_EXT_FORK): when, from which thread */
static uint64_t fork_ticks;
static uint32_t fork_tid, fork_note;

/* Start a new chunk for this thread: fresh timestamp base, fresh cache. */
static int thread_chunk_start(struct fnt_thread *t)
{
	struct fnt_trace_file *tf = cur_file();
	uint8_t *m;
	off_t off;

	off_t after = t->seq ? t->chunk_off : -1;    /* its chunks stay in file order */

	if (unlikely(fnt_no_clock))       /* seccomp strict: no mmap, no clock (clock.c) */
		return -1;
	chunk_release(t, 0);
	if (fnt_ring_chunks && t->ring_n >= fnt_ring_chunks) {
		/* flight recorder: rewrite the oldest chunk.  Invalidate its header
		 * first and clear its data, so that no reader (and no crash in the
		 * middle) ever sees old events under a new header. */
		off = t->ring[t->ring_next];
		t->ring_next = (t->ring_next + 1) % fnt_ring_chunks;
		if (trace_fd_check())
			return -1;
		m = mmap(NULL, chunk_size, PROT_READ | PROT_WRITE, MAP_SHARED, tf->fd, off);
		if (m == MAP_FAILED)
			return -1;
		__atomic_store_n(&((struct fnt_chunk_header *)m)->magic, 0, __ATOMIC_RELEASE);
		memset(m + 4, 0, chunk_size - 4);
		__atomic_thread_fence(__ATOMIC_RELEASE);
	} else {
		m = fnt_ring_chunks ? chunk_map(after, &off) : event_chunk(after, &off);
		if (!m)
			return -1;
		if (fnt_ring_chunks)
			t->ring[t->ring_n++] = off;
	}
	struct fnt_chunk_header *ch = (void *)m;
	ch->type = FNT_CHUNK_EVENTS;
	ch->thread = t->serial;
	ch->tid = t->tid;
	ch->seq = t->seq++;
	ch->depth = t->depth;
	clock_sample(&ch->base_ticks, &ch->mono_ns, NULL);
	prctl(PR_GET_NAME, ch->name, 0, 0, 0);
	t->chunk = m;
	t->chunk_off = off;
	t->pos = m + FNT_CHUNK_HDR_SIZE;
	t->limit = m + chunk_size - FNT_CHUNK_SLACK;
	t->last = ch->base_ticks;
	t->prev_new = 0;
	/* empty slots hold an address no function has, so no hit is ever
	 * written for a slot the reader has not seen filled */
	memset(t->cache, 0xff, sizeof(t->cache));
	chunk_seal(ch);
	if (unlikely(fork_note) && t->pid == tf->pid && t->tid == tf->pid) {
		/* the forking thread's first chunk in the child: where its
		 * inherited frames come from */
		uint8_t *p = put_varint(t->pos, ext_head(0, FNT_EXT_FORK));
		memcpy(p, &fork_ticks, 8);
		t->pos = put_varint(p + 8, fork_tid);
		fork_note = 0;
	}
	put_lost(t);
	return 0;
}

static void thread_exit_cb(void *arg);

static void thread_register(struct fnt_thread *t)
{
	struct fnt_trace_file *tf = cur_file();
	struct fnt_meta_thread mt;
	/* kept: with record-time filters a thread may call setjmp and pass
	 * filtered calls before its first written event registers it */
	struct fnt_filter_state flt = t->flt;
	__typeof__(t->jmp) jmp;
	uint32_t jmp_next = t->jmp_next;
	/* the shadow stack describes the real stack: it outlives re-registration
	 * (first event, a forked child) */
	struct fnt_shadow_entry *ss = t->ss;
	uint32_t ss_top = t->ss_top, ss_cap = t->ss_cap;
	/* and so does the window of stack pointers seen on it (coro.c), which
	 * tells a clone's child from the thread at the next event */
	uintptr_t stk[4] = {t->stk_lo, t->stk_span, t->stk_min, t->stk_max};
	/* a vfork child: its file, and the depth it goes on at (vfork.c) */
	struct fnt_trace_file *file = t->file;
	struct fnt_vfork *vfork = t->vfork;
	int32_t depth = file ? t->depth : 0;

	memcpy(jmp, t->jmp, sizeof(jmp));
	memset(t, 0, sizeof(*t));
	t->file = file;
	t->vfork = vfork;
	t->depth = depth;
	t->flt = flt;
	memcpy(t->jmp, jmp, sizeof(jmp));
	t->jmp_next = jmp_next;
	t->ss = ss;
	t->ss_top = ss_top;
	t->ss_cap = ss_cap;
	t->stk_lo = stk[0];
	t->stk_span = stk[1];
	t->stk_min = stk[2];
	t->stk_max = stk[3];
	t->busy = 1;                    /* the caller holds the guard */
	t->pid = tf->pid;
	t->tid = gettid_();
	t->serial = (uint32_t)__atomic_fetch_add(&tf->hdr->next_thread, 1, __ATOMIC_RELAXED);
	memset(&mt, 0, sizeof(mt));
	mt.ticks = fnt_now();
	mt.thread = t->serial;
	mt.tid = t->tid;
	prctl(PR_GET_NAME, mt.name, 0, 0, 0);
	fnt_meta_append(FNT_META_THREAD, &mt, sizeof(mt), NULL, 0);
	if (!t->file)           /* (a vfork child's thread is its parent's) */
		pthread_setspecific(thread_key, t);
	t->state = FNT_T_ACTIVE;
}

static void runtime_init(void);
static int file_open(struct fnt_trace_file *tf, const struct fnt_file_header *cal);

/* A vfork child's first event (vfork.c): a file of its own, named by its
 * pid, with the module map it shares with its parent, as a forked child's.
 * 0, or -1: it records nothing (its drops count in its parent's file). */
static int child_file_open(struct fnt_thread *t, struct fnt_trace_file *tf)
{
	if (tf == &main_file || t->state == FNT_T_OFF)
		return -1;
	if (file_open(tf, main_file.hdr)) {
		t->state = FNT_T_OFF;   /* its drops count in its parent's file */
		return -1;
	}
	fnt_modules_lock();             /* the parent's other threads may be loading a library */
	fnt_modules_fork_child();
	fnt_modules_unlock();
	return 0;
}

void fnt_reentered(struct fnt_thread *t)
{
	fnt_lost_events(t, FNT_LOST_REENTRANT, 1);
}

int fnt_thread_room(struct fnt_thread *t, size_t need)
{
	struct fnt_trace_file *tf = cur_file();
	if (unlikely(state == 0))
		runtime_init();
	if (state != 1 || fnt_paused || fnt_no_clock)
		return -1;
	if (t->state == FNT_T_OFF && t->pid == tf->pid)
		return -1;
	if (t->state == FNT_T_ACTIVE && t->chunk && t->pid == tf->pid &&
	    t->pos + need + 8 <= t->chunk + chunk_size)
		return 0;
	if (unlikely(!tf->hdr) && child_file_open(t, tf))
		return -1;
	if (t->state == FNT_T_NEW || t->pid != tf->pid)
		thread_register(t);
	else if (t->state == FNT_T_ENDED)
		t->state = FNT_T_ACTIVE;
	if (need + 8 + FNT_CHUNK_HDR_SIZE + 16 > chunk_size || thread_chunk_start(t))
		return -1;
	return 0;
}

uint64_t fnt_event_time(struct fnt_thread *t)
{
	uint64_t now = fnt_now(), d = now - t->last;
	if (d >= (1ull << 47)) {
		t->pos = put_time(t->pos, now);
		d = 0;
	}
	t->last = now;
	return d;
}

int fnt_trace_fd(void)
{
	struct fnt_trace_file *tf = cur_file();
	return state == 1 && !trace_fd_check() ? tf->fd : -1;
}

struct fnt_file_header *fnt_trace_header(void)
{
	struct fnt_trace_file *tf = cur_file();
	return tf->hdr;
}

const char *fnt_trace_path(void)
{
	struct fnt_trace_file *tf = cur_file();
	return tf->path;
}

void fnt_slow_event(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit)
{
	struct fnt_trace_file *tf = cur_file();
	if (unlikely(state == 0)) {
		runtime_init();
		/* this event started the runtime (code that runs before its
		 * constructor): the filters just read decide it too */
		if (state == 1 && (fnt_filtering | (uint32_t)fnt_paused) && fnt_gate_skip(t, fn, is_exit))
			goto out;
	}
	if (state != 1)
		goto out;
	if (unlikely(fnt_no_clock)) {    /* seccomp strict (clock.c) */
		count_lost(reserved[FNT_RES_LOST_NOCLOCK], 1);
		goto out;
	}
	if (t->state == FNT_T_OFF && t->pid == tf->pid) {
		count_lost(lost_nospace, 1);
		goto out;
	}
	if (unlikely(t->state == FNT_T_NEW && t->tid)) {
		/* the thread's first written event (the filters left out the
		 * ones before, which named the thread, coro.c): the thread's, or
		 * a hand-made vfork's child in its place? */
		if (fnt_foreign_event(t, is_exit) == 1)
			goto out;
		tf = cur_file();        /* (the child's own file, if it was lent the state) */
	}
	if (unlikely(!tf->hdr) && child_file_open(t, tf)) {
		count_lost(lost_nospace, 1);
		goto out;
	}
	if (t->state == FNT_T_NEW || t->pid != tf->pid)
		thread_register(t);
	else if (t->state == FNT_T_ENDED)
		t->state = FNT_T_ACTIVE;  /* calls after the thread's destructor ran */
	if (thread_chunk_start(t)) {
		t->state = FNT_T_OFF;
		count_lost(lost_nospace, 1);
		goto out;
	}
	/* now write the event the fast path could not */
	finish_event(t, fnt_now(), fn, site, is_exit);
out:
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

/* pthread key destructor: the thread is exiting. */
static void thread_exit_cb(void *arg)
{
	struct fnt_thread *t = arg;
	if (t != &fnt_self || t->state != FNT_T_ACTIVE || !t->chunk || t->busy)
		return;
	t->busy = 1;
	if (t->pos >= t->limit && thread_chunk_start(t)) {
		t->busy = 0;
		return;
	}
	put_lost(t);
	put_thread_name(t);
	put_thread_end(t);
	chunk_release(t, 1);
	fnt_filter_thread_gone(t);
	fnt_shadow_release(t);
	t->state = FNT_T_ENDED;
	t->busy = 0;
}

/* ---- setjmp / longjmp (not in the static archive: see the Makefile) ---- */
#ifndef FNT_STATIC_ARCHIVE

static const char *const jmp_names[] = {
	"_setjmp", "setjmp", "__sigsetjmp", "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
};
static void *jmp_real[7];

static void *jmp_target(int which)
{
	void *f = __atomic_load_n(&jmp_real[which], __ATOMIC_RELAXED);
	if (!f) {
		f = dlsym(RTLD_NEXT, jmp_names[which]);
		__atomic_store_n(&jmp_real[which], f, __ATOMIC_RELAXED);
	}
	return f;
}

void *fnt_note_setjmp(void *env, int which)
{
	struct fnt_thread *t = &fnt_self;
	unsigned i;
	for (i = 0; i < 8; i++)
		if (t->jmp[i].env == (uintptr_t)env)
			break;
	if (i == 8)
		i = t->jmp_next++ & 7;
	t->jmp[i].env = (uintptr_t)env;
	t->jmp[i].depth = t->depth;
	t->jmp[i].fdepth = t->flt.fdepth;
	t->jmp[i].ss_top = t->ss_top;
	return jmp_target(which);
}

void *fnt_note_longjmp(void *env, int which)
{
	struct fnt_thread *t = &fnt_self;
	for (unsigned i = 0; i < 8; i++) {
		if (t->jmp[i].env != (uintptr_t)env)
			continue;
		int32_t n = t->depth - t->jmp[i].depth;
		fnt_filter_longjmp(t, t->jmp[i].fdepth);
		if (n <= 0 && t->ss_top > t->jmp[i].ss_top)
			t->ss_top = t->jmp[i].ss_top;   /* only frames the filters left out were left */
		if (n <= 0 || t->state != FNT_T_ACTIVE || !t->chunk || t->busy || state != 1)
			break;
		t->busy = 1;
		if (t->pos < t->limit || !thread_chunk_start(t)) {
			uint64_t now = fnt_now(), d = now - t->last;
			if (d >= (1ull << 47)) {
				t->pos = put_time(t->pos, now);
				d = 0;
			}
			t->last = now;
			t->pos = put_varint(t->pos, ext_head(d, FNT_EXT_UNWIND));
			t->pos = put_varint(t->pos, (uint64_t)n);
			t->depth = t->jmp[i].depth;
			if (t->ss_top > t->jmp[i].ss_top)
				t->ss_top = t->jmp[i].ss_top;   /* those frames are gone */
		}
		t->busy = 0;
		break;
	}
	return jmp_target(which);
}

#endif

/* ---- process start, fork, exit ---- */

static void read_cmdline(struct fnt_file_header *h)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, r;
	if (fd < 0)
		return;
	while (n < (ssize_t)sizeof(h->cmdline) &&
	       (r = read(fd, h->cmdline + n, sizeof(h->cmdline) - (size_t)n)) > 0)
		n += r;
	if (n == (ssize_t)sizeof(h->cmdline)) {
		char c;
		h->cmdline_truncated = read(fd, &c, 1) > 0;
	}
	close(fd);
	h->cmdline_len = (uint32_t)n;
}

/* Create "<dir>/<pid>-<n>.fnt" (n counts execs within one pid) and map its
 * header.  cal: calibration to copy (a forked child keeps its parent's). */
static int file_open(struct fnt_trace_file *tf, const struct fnt_file_header *cal)
{
	struct fnt_file_header *h;
	uint32_t n;
	struct stat dst;

	/* private by default; and never into a directory where others could
	 * have planted names (`fntrace record` checks the same before) */
	mkdir(trace_dir, FNT_DIR_MODE(fnt_file_mode));
	if (stat(trace_dir, &dst))
		return -1;
	if (dst.st_uid != geteuid() || ((dst.st_mode & 022) && !(dst.st_mode & S_ISVTX))) {
		errno = EPERM;
		return -1;
	}
	for (n = 0; n < 1000; n++) {
		snprintf(tf->path, sizeof(tf->path), "%s/%u-%u.fnt", trace_dir, tf->pid, n);
		tf->fd = open(tf->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fnt_file_mode);
		if (tf->fd >= 0 || errno != EEXIST)
			break;
	}
	if (tf->fd < 0)
		return -1;
	if (fnt_file_mode != 0600)
		fchmod(tf->fd, fnt_file_mode);        /* exactly --mode, whatever the umask */
	{
		/* out of the way of the low numbers programs manage themselves */
		struct stat st;
		tf->fd = fnt_fd_high(tf->fd);
		if (tf->fd < 0 || fstat(tf->fd, &st))
			goto fail;
		tf->ino = st.st_ino;
		tf->dev = st.st_dev;
	}
	if (reserve_space(0, FNT_HEADER_SIZE))
		goto fail;
	h = mmap(NULL, FNT_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, tf->fd, 0);
	if (h == MAP_FAILED)
		goto fail;
	h->version = FNT_FORMAT_VERSION;
	h->header_size = FNT_HEADER_SIZE;
	h->chunk_size = chunk_size;
	h->flags = fnt_flags;
	h->reserved[FNT_RES_RING_CHUNKS] = fnt_ring_chunks;
	h->pid = tf->pid;
	h->ppid = (uint32_t)getppid();
	h->exec_seq = n;
	h->clock = fnt_use_tsc ? FNT_CLOCK_TSC : FNT_CLOCK_MONOTONIC;
	if (cal) {
		h->cal0_ticks = cal->cal0_ticks, h->cal0_mono = cal->cal0_mono, h->cal0_real = cal->cal0_real;
		h->cal1_ticks = cal->cal1_ticks, h->cal1_mono = cal->cal1_mono, h->cal1_real = cal->cal1_real;
	} else {
		clock_sample(&h->cal0_ticks, &h->cal0_mono, &h->cal0_real);
		if (fnt_use_tsc)         /* ~1 ms apart, so a trace cut short still converts well */
			while (fnt_mono_ns() < h->cal0_mono + 1000000)
				;
		clock_sample(&h->cal1_ticks, &h->cal1_mono, &h->cal1_real);
	}
	ssize_t l = readlink("/proc/self/exe", h->exe, sizeof(h->exe) - 1);
	if (l > 0)
		h->exe[l] = 0;
	read_cmdline(h);
	memcpy(h->magic, FNT_FILE_MAGIC, 8);
	tf->hdr = h;
	if (tf == &main_file)   /* (api.c writes its records again into a new file of the process) */
		__atomic_add_fetch(&fnt_file_gen, 1, __ATOMIC_RELAXED);
	return 0;
fail:
	close(tf->fd);
	tf->fd = -1;
	unlink(tf->path);
	return -1;
}

static void at_exit(void)
{
	struct fnt_trace_file *tf = &main_file;
	struct fnt_thread *t = &fnt_self;
	if (state != 1 || getpid() != (pid_t)tf->pid)
		return;
	spares_close();
	if (t->state == FNT_T_ACTIVE && t->chunk && !t->busy && t->pid == tf->pid &&
	    (t->pos < t->limit || !thread_chunk_start(t))) {
		t->busy = 1;
		put_lost(t);
		put_thread_name(t);
		put_thread_end(t);
		/* late events (other exit handlers) still land here, after the end
		 * record: keep the mapping, give back all but a page of the tail */
		if (!fnt_drain_owns(t->chunk))
			punch_tail(t->chunk_off, (uintptr_t)(t->pos - t->chunk) + 4096);
		t->busy = 0;
	}
	if (tf->meta_chunk && !meta_lock_take()) {
		punch_tail(tf->meta_chunk_off, (uintptr_t)(tf->meta_pos - tf->meta_chunk) + 4096);
		__atomic_store_n(&tf->meta_lock, 0, __ATOMIC_RELEASE);
	}
	fnt_drain_exit();
	clock_sample(&tf->hdr->end_ticks, &tf->hdr->end_mono, &tf->hdr->end_real);
	/* a process image that recorded no thread (a shell, an uninstrumented
	 * program) leaves no file behind, unless it says what -P left alone */
	if (__atomic_load_n(&tf->hdr->next_thread, __ATOMIC_RELAXED) == 0 && !fnt_patch_noted) {
		unlink(tf->path);
		return;
	}
	__atomic_store_n(&tf->hdr->end_flags, 1, __ATOMIC_RELEASE);
}

static int fork_meta_locked, fork_spare_locked;

static void fork_prepare(void)
{
	fork_ticks = fnt_now();         /* before the fork: every later event of the parent comes after */
	fnt_modules_lock();
	fork_meta_locked = !meta_lock_take();
	fork_spare_locked = !lock_take(&spare_lock);
}

static void fork_parent(void)
{
	struct fnt_trace_file *tf = &main_file;
	if (fork_spare_locked)
		lock_release(&spare_lock);
	if (fork_meta_locked)
		__atomic_store_n(&tf->meta_lock, 0, __ATOMIC_RELEASE);
	fnt_modules_unlock();
}

/* In the child: its own file, its own module map, its own thread serials.
 * The forking thread's chunk belongs to the parent's file: drop it unused. */
static void fork_child_common(int raw)
{
	struct fnt_trace_file *tf = &main_file;
	struct fnt_thread *t = &fnt_self;
	struct fnt_file_header cal;
	int32_t depth = t->depth;

	fnt_fork_mask_init();           /* (its page reads as zeros in a child) */
	tf->meta_lock = 0;
	spare_lock = 0;
	if (raw)
		fnt_modules_lock_reset();   /* no prepare step: another thread may have held it */
	else
		fnt_modules_unlock();   /* taken by fork_prepare on this same thread */
#ifndef FNT_STATIC_ARCHIVE
	fnt_patch_fork_child();         /* a pad switch another thread was making */
#endif
	/* the helper did not come along; its spares are the parent's chunks */
	helper_running = 0;
	while (spare_n)
		munmap(spares[--spare_n].map, chunk_size);
	while (junk_n)
		munmap(junk[--junk_n].map, chunk_size);
	if (state != 1)
		return;
	memcpy(&cal, tf->hdr, sizeof(cal));
	if (t->chunk && !fnt_drain_owns(t->chunk))
		munmap(t->chunk, chunk_size);
	fnt_drain_fork_child();         /* the ring is the parent's, and its slots */
	t->chunk = t->pos = t->limit = NULL;
	if (tf->meta_chunk)
		munmap(tf->meta_chunk, chunk_size);
	tf->meta_chunk = tf->meta_pos = tf->meta_end = NULL;
	tf->meta_seq = 0;
	munmap(tf->hdr, FNT_HEADER_SIZE);
	tf->hdr = NULL;
	close(tf->fd);
	tf->fd = -1;
	tf->pid = (uint32_t)getpid();
	if (file_open(tf, &cal)) {
		state = 2;
		return;
	}
	fnt_drain_fork_file(tf->path, (uint64_t)tf->ino, (uint64_t)tf->dev);
	fnt_modules_fork_child();
	/* the child goes on at the same depth; the reader learns it from the
	 * first chunk header, and which frames those are from the parent's
	 * thread at fork_ticks (FNT_EXT_FORK, below) */
	fork_tid = t->tid;
	fork_note = depth > 0;
	uint32_t busy = t->busy;
	fnt_filter_thread_exit(t);       /* -t: the saved positions were in the parent's chunk */
	t->state = FNT_T_NEW;
	thread_register(t);     /* (clears the ring: its chunks are the parent's) */
	t->depth = depth;
	t->busy = busy;
}

static void fork_child(void)
{
	fork_child_common(0);
}

/* A process cloned by a raw system call, found at its first event (clone.c) */
void fnt_raw_fork_child(void)
{
	fork_child_common(1);
}

void fnt_fork_prepare(void) { fork_prepare(); }
void fnt_fork_parent(void) { fork_parent(); }
void fnt_fork_child(void) { fork_child(); }

static void runtime_init(void)
{
	struct fnt_trace_file *tf = &main_file;
	const char *env;
	size_t len;

	if (state)
		return;
	state = 2;
	fnt_fork_mask_init();
	if (fnt_secure_exec())          /* setuid & co: the caller's settings are not to be trusted */
		return;
	fnt_environ_early();
	env = getenv(FNTRACE_ENV_DISABLE);
	if (env && *env && strcmp(env, "0"))
		return;
	fnt_use_tsc = tsc_usable();
	fnt_filter_init();
	if (getenv(FNTRACE_ENV_CALLSITE) && strcmp(getenv(FNTRACE_ENV_CALLSITE), "0"))
		fnt_flags |= FNT_FLAG_CALLSITE;
	env = getenv(FNTRACE_ENV_RING);
	if (env && *env) {
		unsigned long v = strtoul(env, NULL, 0);
		if (v >= 2) {
			fnt_ring_chunks = v > FNT_RING_MAX ? FNT_RING_MAX : (uint32_t)v;
			fnt_flags |= FNT_FLAG_RING;
		}
	}
	fnt_argspec_init();
	fnt_libcall_init();
	if (fnt_argspec_wanted())
		fnt_flags |= FNT_FLAG_ARGS;
	env = getenv(FNTRACE_ENV_CHUNK_SIZE);
	if (env && *env) {
		unsigned long v = strtoul(env, NULL, 0);
		if (v >= FNT_MIN_CHUNK && v <= FNT_MAX_CHUNK)
			chunk_size = (uint32_t)(v & ~4095ul);
	}
	env = getenv(FNTRACE_ENV_MODE);
	if (env && *env) {
		unsigned long v = strtoul(env, NULL, 8);
		if ((v & 0600) == 0600 && !(v & ~0644ul))
			fnt_file_mode = (unsigned)v;
	}
	env = getenv(FNTRACE_ENV_DIR);
	int standalone = !env || !*env;
	if (standalone) {
		/* linked with -lfntrace and run on its own: a new trace, not one
		 * mixed into an earlier run's (rotate.c), which the children of
		 * this run then join through FNTRACE_DIR */
		env = "fntrace.data";
		if (fnt_rotate_default(env)) {
			static const char msg[] = "fntrace: './fntrace.data' holds files that are not an earlier "
				"trace's, or a running 'fntrace record' holds it; not recording (set FNTRACE_DIR)\n";
			(void)!write(2, msg, sizeof(msg) - 1);
			return;
		}
	}
	len = strlen(env);
	if (len >= sizeof(trace_dir) - 64)
		return;
	if (env[0] != '/' && getcwd(trace_dir, sizeof(trace_dir) - len - 64)) {
		strcat(trace_dir, "/");
		strcat(trace_dir, env);
	} else {
		memcpy(trace_dir, env, len + 1);
	}
	tf->pid = (uint32_t)getpid();
	if (standalone)
		setenv(FNTRACE_ENV_DIR, trace_dir, 1);
	if (file_open(tf, NULL)) {
		/* the one message the runtime ever prints, at start-up */
		char msg[4400];
		int n = snprintf(msg, sizeof(msg), "fntrace: cannot create a trace file in '%s': %s; not recording\n",
				 trace_dir, strerror(errno));
		if (n > 0)
			(void)!write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
		return;
	}
	if (pthread_key_create(&thread_key, thread_exit_cb))
		return;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	atexit(at_exit);
	if (!fnt_ring_chunks)           /* a flight recorder rewrites its chunks in the file */
		fnt_drain_attach(chunk_size, tf->path, (uint64_t)tf->ino, (uint64_t)tf->dev);
	state = 1;
	fnt__active = !fnt_paused;
	fnt_filter_write_meta();
	fnt_modules_scan();
	fnt_snapshot_signal_init();
	fnt_trace_signals_init();
	fnt_exec_init(trace_dir);
}

__attribute__((constructor)) static void runtime_ctor(void)
{
	struct fnt_thread *t = &fnt_self;
	if (t->busy)
		return;
	t->busy = 1;
	runtime_init();                 /* nothing if a hook got there first */
	/* a thread's first event reads its name through the prctl wrapper,
	 * whose first call looks the real one up with dlsym: ~5 KB of stack
	 * in ld.so, too much for a signal handler on a small sigaltstack
	 * (doc/safety.md).  Look it up now, out of any signal context. */
	{
		char name[16];
		prctl(PR_GET_NAME, name, 0, 0, 0);
	}
	helper_start();
	t->busy = 0;
}
