/*
 * tracefile.c - the trace file and its chunks: creating a process's file
 * and its header, handing out chunks (from the file, the ring `fntrace
 * record` drains, or the spares a helper thread prepares), starting a
 * thread's next chunk, giving back unused tails, and the meta stream.
 *
 * Crash safety comes from the file itself: every buffer is a MAP_SHARED
 * mapping of the trace file, so what a thread has stored is in the page cache
 * the moment it is stored and outlives the process, whatever kills it.  There
 * is no flush and no signal handler.  The runtime's one thread of its own
 * prepares chunks ahead (see "spare chunks"); the program never waits for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "fntrace.h"
#include "runtime/runtime-internal.h"
#include "format/pathcheck.h"

uint32_t chunk_size = FNT_DEFAULT_CHUNK;
char trace_dir[4096];

/* The process's trace file (struct fnt_trace_file in runtime.h).  A vfork
 * child, which runs on this memory while the parent's other threads go on
 * writing main_file, has a file of its own (vfork.c), named by its thread
 * state; every slow path writes the file of the context it runs in. */
struct fnt_trace_file main_file = { .fd = -1 };

void count_lost_at(size_t field, uint64_t n)
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
	if (!fnt_denied(SYS_fallocate)) {      /* (else zeros written, sandbox.c) */
		/* the blocks first, the file's size kept: a call that fails half
		 * way (ext4) gives back what it took and leaves the size where it
		 * was, not inside the chunk; then the size, which takes no more */
		if (fallocate(tf->fd, FALLOC_FL_KEEP_SIZE, off, len) == 0 && fallocate(tf->fd, 0, off, len) == 0)
			return 0;
		if (errno != EOPNOTSUPP && errno != ENOSYS) {
			int e = errno;
			fallocate(tf->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len);
			errno = e;
			return -1;
		}
	}
	if (fnt_denied(SYS_pwrite64))
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
	const struct stat *st;
	int fd;
	if (tf->fd >= 0 && (st = fnt_fstat(tf->fd)) && st->st_ino == tf->ino && st->st_dev == tf->dev)
		return 0;
	/* no telling which file the number names, or no opening it again:
	 * nothing written (sandbox.c) */
	if (fnt_fstat_denied() || fnt_denied(SYS_openat) || fnt_denied(SYS_fcntl) || fnt_denied(SYS_close))
		return -1;
	fd = fnt_fd_high(open(tf->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC));   /* never a low number, never through a link */
	if (fd < 0)
		return -1;
	if (!(st = fnt_fstat(fd)) || st->st_ino != tf->ino || st->st_dev != tf->dev) {
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
	if (fnt_denied(SYS_madvise))
		return;         /* (sandbox.c) */
	if (!__atomic_load_n(&unsupported, __ATOMIC_RELAXED) && madvise(m, len, MADV_POPULATE_WRITE) &&
	    errno == EINVAL)
		__atomic_store_n(&unsupported, 1, __ATOMIC_RELAXED);
}

/* Chunk `idx` has its blocks (or a slot of record's ring that record will
 * write there): the reader's measure of a cut file (chunks_reserved) */
static void chunk_reserved(uint64_t idx)
{
	uint64_t *end = &cur_file()->hdr->chunks_reserved, seen = __atomic_load_n(end, __ATOMIC_RELAXED);
	while (seen < idx + 1 &&
	       !__atomic_compare_exchange_n(end, &seen, idx + 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
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
	chunk_reserved(idx);
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
	if (!trace_fd_check() && !fnt_denied(SYS_fallocate))
		fallocate(tf->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, chunk_size);
	munmap(m, chunk_size);
}

/* The trace file's meta lock and the spare-chunk lock: a word holding the
 * id of the thread that holds it.  fork_prepare takes both, and a signal
 * handler that forks may interrupt its own thread while it holds one: that
 * lock never frees, so this gives up at once when the holder is the
 * caller.  Otherwise after 100,000 tries or 200 ms, whichever comes first
 * (on a loaded machine each sched_yield can cost a whole time slice). */
int lock_take(int *lock)
{
	int self = (int)fnt_gettid();
	uint64_t t0 = 0;
	for (int i = 0; i < 100000; i++) {
		int seen = 0;
		if (__atomic_compare_exchange_n(lock, &seen, self, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 0;
		if (seen == self)
			return -1;      /* this thread's, under the handler running now */
		if (i > 100) {
			uint64_t now = fnt_mono_ns();
			if (!t0)
				t0 = now;
			else if (now - t0 > 200000000ull)
				break;
			if (!fnt_denied(SYS_sched_yield))
				sched_yield();
		}
	}
	return -1;
}

void lock_release(int *lock)
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
struct spare spares[SPARES];    /* ready, in file order */
struct spare junk[SPARES];      /* fell behind, to discard */
int spare_n, junk_n, spare_closed;      /* under spare_lock */
int spare_lock;
static uint32_t spare_wake;            /* futex word: bumped when a spare is taken */
int helper_running;             /* a helper serves this process image */

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
void helper_start(void)
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
void spares_close(void)
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
	/* a seccomp filter that forbids fstat (sandbox.c): the descriptor
	 * cannot be checked, so nothing goes through it; record's copy writes
	 * the slot with its own (and counts it lost if the disk is full) */
	int blind = fnt_fstat_denied() || (fnt_denied(SYS_fallocate) && fnt_denied(SYS_pwrite64));
	if (!blind && trace_fd_check())
		return NULL;
	uint64_t idx = __atomic_fetch_add(&tf->hdr->next_chunk, 1, __ATOMIC_RELAXED);
	off_t off = (off_t)FNT_HEADER_SIZE + (off_t)idx * chunk_size;
	uint8_t *m;
	if (!blind && reserve_space(off, chunk_size))
		return NULL;
	m = fnt_drain_take((uint64_t)off);
	if (m || !blind)
		chunk_reserved(idx);
	/* the reader's cue that a process killed with record may lack the end
	 * of the chunks it was writing (reader-open.c, unwritten_warn) */
	if (m && !(__atomic_load_n(&tf->hdr->flags, __ATOMIC_RELAXED) & FNT_FLAG_DRAINED))
		__atomic_or_fetch(&tf->hdr->flags, FNT_FLAG_DRAINED, __ATOMIC_RELAXED);
	if (blind) {
		if (!m)
			return NULL;
		fnt_drain_unreserved();
	}
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

int meta_lock_take(void)
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

	int cancel, off_ = 0, blocked = 0;
	uint64_t was;
	if (state != 1 || need > chunk_size / 2)
		goto drop;
	/* no cancellation with the lock held: a deferred one in a new chunk's
	 * system calls, an asynchronous one anywhere (its SIGCANCEL blocked,
	 * with the other asynchronous signals, as at a chunk's start; only
	 * then: two system calls): either left the lock held, and every
	 * record after it waited 200 ms to be dropped */
	off_ = fnt_cancel_off(&cancel);
	blocked = off_ && fnt_cancel_async() && fnt_async_block(&was);
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
	if (blocked)
		fnt_async_unblock(&was);
	if (off_)
		fnt_cancel_back(cancel);
	return ret;
}

/* Free the disk blocks of a chunk past `used` bytes; they read as zeros
 * again, which is what an unused tail must be. */
void punch_tail(int64_t chunk_off, uintptr_t used)
{
	struct fnt_trace_file *tf = cur_file();
	uintptr_t from = (used + 4095) & ~(uintptr_t)4095;
	if (from < chunk_size && !trace_fd_check() && !fnt_denied(SYS_fallocate))
		fallocate(tf->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, chunk_off + (off_t)from,
			  (off_t)(chunk_size - from));
}

/* Give back the unused tail of a finished chunk (its bytes read as zeros,
 * which is what an unused tail must be), then unmap it. */
void chunk_release(struct fnt_thread *t, int punch)
{
	struct fnt_trace_file *tf = cur_file();
	uint8_t *chunk = t->chunk, *pos = t->pos;
	if (!chunk)
		return;
	/* the thread lets go of it first: a signal handler that lands in
	 * the calls below and never comes back (a siglongjmp, setjmp.c)
	 * finds no pointer into a chunk that is gone or another thread's */
	t->chunk = t->pos = t->limit = NULL;
	__asm__ volatile("" ::: "memory");
	if (fnt_drain_owns(chunk)) {
		fnt_drain_release(chunk);       /* record copies it out, only its used part */
	} else {
		if (punch && state == 1 && t->pid == tf->pid)
			punch_tail(t->chunk_off, (uintptr_t)(pos - chunk) + 8);
		munmap(chunk, chunk_size);
	}
}


static int chunk_start(struct fnt_thread *t);

/* Start a new chunk for this thread: fresh timestamp base, fresh cache.
 * No signal handler lands in the middle of it (fnt_async_block): one that
 * left it by a siglongjmp left the thread with no chunk and the file with
 * a half-made one.  Nor does a thread cancellation: the chunk's
 * fallocate, pwrite and close are cancellation points, where a pending
 * cancel unwound the thread from inside a traced call's hook (a call that
 * is no cancellation point untraced: a mutex it held stayed locked), or,
 * with the signals blocked, glibc waited for SIGCANCEL for good (the
 * program hung in pthread_join). */
int thread_chunk_start(struct fnt_thread *t)
{
	uint64_t was;
	int cancel, off = fnt_cancel_off(&cancel);
	int blocked = fnt_async_block(&was), ret = chunk_start(t);
	if (blocked)
		fnt_async_unblock(&was);
	if (off)
		fnt_cancel_back(cancel);
	return ret;
}

static int chunk_start(struct fnt_thread *t)
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
	fnt_thread_name(ch->name);
	t->chunk = m;
	t->chunk_off = off;
	t->pos = m + FNT_CHUNK_HDR_SIZE;
	t->limit = m + chunk_size - FNT_CHUNK_SLACK;
	t->last = ch->base_ticks;
	t->prev_new = 0;
	/* empty slots hold an address no function has, so no hit is ever
	 * written for a slot the reader has not seen filled */
	memset(t->cache, 0xff, sizeof(t->cache));
	int forked = unlikely(fork_note) && t->pid == tf->pid && t->tid == tf->pid;
	/* A thread that has switched machine stacks (written a SWITCH), or
	 * is on another than its own: the chunk starts with a SWITCH to the
	 * stack it is on (below), and its header says how many of the calls
	 * its depth counts are open on that stack (the depth
	 * counts on across switches: each stack's calls start where the
	 * counter stood when the thread entered it), and, on a coroutine's
	 * stack, how many lie under it (those open on the stacks it was
	 * entered from when a thread first entered it).  A reader that has no earlier chunk of the thread (a flight
	 * recorder overwrote them, they went missing, the filters or recording
	 * off left out the events before the switch) then starts on the right
	 * stack, its frames at the right depths. */
	int named = fnt_coro_named(t);
	int sw = !forked && (named || (!t->stk_cur && t->switches));
	ch->below = 0;
	if (sw) {
		int32_t on = fnt_stack_open(t), under = t->stk_below > 0 ? t->stk_below : 0;
		ch->below = (1 + (uint64_t)(on > 0 ? on : 0)) | (named ? 1 + (uint64_t)under : 0) << 32;
	}
	chunk_seal(ch);
	if (forked) {
		/* the forking thread's first chunk in the child: where its
		 * inherited frames come from */
		uint8_t *p = put_varint(t->pos, ext_head(0, FNT_EXT_FORK));
		memcpy(p, &fork_ticks, 8);
		t->pos = put_varint(p + 8, fork_tid);
		fork_note = 0;
	} else if (sw) {
		t->pos = fnt_put_switch_at(t, t->pos, named ? t->stk_cur : 0);
	}
	put_lost(t);
	return 0;
}

/* A vfork child's first event (vfork.c): a file of its own, named by its
 * pid, with the module map it shares with its parent, as a forked child's.
 * 0, or -1: it records nothing (its drops count in its parent's file). */
int child_file_open(struct fnt_thread *t, struct fnt_trace_file *tf)
{
	if (tf == &main_file || t->state == FNT_T_OFF)
		return -1;
	if (file_open(tf, main_file.hdr, fnt_now())) {   /* (its parent waits: no sibling races it) */
		t->state = FNT_T_OFF;   /* its drops count in its parent's file */
		return -1;
	}
	int locked = fnt_modules_lock();   /* the parent's other threads may be loading a library */
	fnt_modules_fork_child();
	if (locked)
		fnt_modules_unlock();
	return 0;
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

struct fnt_file_header *fnt_trace_header_open(void)
{
	struct fnt_thread *t = &fnt_self;
	struct fnt_trace_file *tf = cur_file();
	if (!tf->hdr && t->file && child_file_open(t, tf))
		return NULL;
	return tf->hdr;
}

uint32_t fnt_trace_pid(void)
{
	return cur_file()->pid;
}

const char *fnt_trace_path(void)
{
	struct fnt_trace_file *tf = cur_file();
	return tf->path;
}

/* ---- the process's file ---- */

static void read_cmdline(struct fnt_file_header *h)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, r;
	char **argv, **envp;
	if (fd < 0 && !fnt_initial_stack(&argv, &envp)) {
		/* no /proc: the arguments as the kernel put them on the first stack */
		size_t len = 0;
		for (; *argv && len < sizeof(h->cmdline); argv++) {
			size_t l = strlen(*argv) + 1;
			if (l > sizeof(h->cmdline) - len) {
				h->cmdline_truncated = 1;
				l = sizeof(h->cmdline) - len;
			}
			memcpy(h->cmdline + len, *argv, l);
			len += l;
		}
		h->cmdline_truncated |= *argv != NULL;
		h->cmdline_len = (uint32_t)len;
		return;
	}
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

/* The trace directory, by device and inode: from record (FNTRACE_DIR_ID),
 * else from the first file made.  A process whose path names another
 * directory (it, or its parent before the fork, entered a mount namespace
 * with its own /tmp, or a chroot) makes no file there. */
static dev_t dir_dev;
static ino_t dir_ino;
static int dir_known;

static void dir_id_load(void)
{
	const char *id = getenv(FNTRACE_ENV_DIR_ID);
	unsigned long long d, i;
	int n = 0;
	/* only for the directory it was made for: a program may give a
	 * child a FNTRACE_DIR of its own (and the exec wrappers keep this) */
	if (dir_known || !id || sscanf(id, "%llu:%llu:%n", &d, &i, &n) != 2 || !n || strcmp(id + n, trace_dir))
		return;
	dir_dev = (dev_t)d;
	dir_ino = (ino_t)i;
	dir_known = 1;
}

uint64_t fnt_pid_ns;

int fnt_trace_dir_elsewhere(void)
{
	struct stat st;
	dir_id_load();
	if (stat(trace_dir, &st))
		return errno == ENOENT || errno == ENOTDIR;
	return dir_known && (st.st_dev != dir_dev || st.st_ino != dir_ino);
}

/* The user's private group, whose group-writable directories are the
 * user's (format/pathcheck.h): from record, else from /etc.  Found once,
 * by the process's first file (at start-up, on its main stack: the /etc
 * reader's buffers are 5 KB, too much for a forked child's first event on
 * a signal handler's small stack), and kept: a child inherits it. */
static gid_t user_gid;
static int user_gid_known;

static __attribute__((noinline)) gid_t user_group(void)
{
	if (!user_gid_known) {
		const char *ug = getenv(FNTRACE_ENV_USER_GROUP);
		user_gid = ug && *ug ? (gid_t)strtoul(ug, NULL, 10) : fnt_user_private_gid(geteuid());
		user_gid_known = 1;
	}
	return user_gid;
}

/* Create "<dir>/<pid>-<n>.fnt" (n counts execs within one pid) and map its
 * header.  cal: calibration to copy (a forked child keeps its parent's);
 * made_ticks: when such a child was made, on that clock. */
int file_open(struct fnt_trace_file *tf, const struct fnt_file_header *cal, uint64_t made_ticks)
{
	struct fnt_file_header *h;
	uint32_t n;
	struct stat dst;

	/* a process (a forked child) whose seccomp filter forbids a call this
	 * makes records nothing, rather than be killed (sandbox.c) */
	if (fnt_file_calls_denied()) {
		errno = EPERM;
		return -1;
	}
	/* private by default; and never into a directory where others could
	 * have planted names (`fntrace record` checks the same before) */
	gid_t ok_gid = user_group();
	{
		/* and never by a path someone else could redirect
		 * (format/pathcheck.h): a child forked later goes by it again */
		char comp[256];
		const char *why;
		char *scratch = mmap(NULL, FNT_PATHCHECK_SCRATCH, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (scratch == MAP_FAILED)
			return -1;
		int bad = fnt_path_trusted(trace_dir, geteuid(), ok_gid, comp, sizeof(comp), &why, scratch);
		int e = why ? EPERM : errno;
		munmap(scratch, FNT_PATHCHECK_SCRATCH);
		if (bad) {
			errno = e;
			return -1;
		}
	}
	dir_id_load();
	if (!dir_known)
		mkdir(trace_dir, FNT_DIR_MODE(fnt_file_mode));
	if (stat(trace_dir, &dst))
		return -1;
	if (dir_known && (dst.st_dev != dir_dev || dst.st_ino != dir_ino)) {
		errno = EXDEV;  /* not the trace's directory */
		return -1;
	}
	if (dst.st_uid != geteuid() || fnt_path_open_to_others(&dst, ok_gid)) {
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
	h->flags = fnt_flags | FNT_FLAG_RESERVED;
	h->reserved[FNT_RES_RING_CHUNKS] = fnt_ring_chunks;
	h->pid = tf->pid;
	h->ppid = (uint32_t)getppid();
	{
		/* which namespace the pid is in (a fork child's may not be its
		 * parent's: the parent may have called unshare(CLONE_NEWPID)) */
		struct stat ns;
		fnt_pid_ns = stat("/proc/self/ns/pid", &ns) ? 0 : (uint64_t)ns.st_ino;
		h->pid_ns = fnt_pid_ns;
	}
	h->exec_seq = n;
	h->clock = fnt_use_tsc ? FNT_CLOCK_TSC : FNT_CLOCK_MONOTONIC;
	if (cal) {
		h->cal0_ticks = cal->cal0_ticks, h->cal0_mono = cal->cal0_mono, h->cal0_real = cal->cal0_real;
		h->cal1_ticks = cal->cal1_ticks, h->cal1_mono = cal->cal1_mono, h->cal1_real = cal->cal1_real;
		h->reserved[FNT_RES_FORK_TICKS] = made_ticks;
	} else {
		clock_sample(&h->cal0_ticks, &h->cal0_mono, &h->cal0_real);
		if (fnt_use_tsc)         /* ~1 ms apart, so a trace cut short still converts well */
			while (fnt_mono_ns() < h->cal0_mono + 1000000)
				;
		clock_sample(&h->cal1_ticks, &h->cal1_mono, &h->cal1_real);
	}
	fnt_self_exe(h->exe, sizeof(h->exe));
	read_cmdline(h);
	memcpy(h->magic, FNT_FILE_MAGIC, 8);
	tf->hdr = h;
	dir_dev = dst.st_dev;
	dir_ino = dst.st_ino;
	dir_known = 1;
	if (tf == &main_file)   /* (api.c writes its records again into a new file of the process) */
		__atomic_add_fetch(&fnt_file_gen, 1, __ATOMIC_RELAXED);
	return 0;
fail: {
		int e = errno;     /* the cause, for the message (not close(-1)'s EBADF) */
		if (tf->fd >= 0)
			close(tf->fd);
		tf->fd = -1;
		if (!fnt_denied(SYS_unlink))
			unlink(tf->path);
		errno = e;
		return -1;
	}
}
