/*
 * record-drain.c - the `fntrace record` side of the drained ring
 * (format/drain.h, runtime/drain.c, doc/perf-floor.md).
 *
 * record creates the ring (a memfd), hands it to the program and, while
 * waiting for the program, copies every full slot into the trace file at
 * the slot's chunk offset, zeroes what it copied and frees the slot.  When
 * the program is gone (exited, killed, crashed), or a new image of it has
 * let go of the ring (exec), the slots still being written are copied too:
 * their unused tails are zeros, so the file holds exactly what the program
 * stored, as it would have through a mapping of the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fntrace.h"
#include "format/drain.h"
#include "format/safeio.h"
#include "tool/tool.h"
#include "tool/record-drain.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int drain_create(struct drain *d, uint32_t chunk_size, uint32_t n_slots)
{
	size_t len = FNT_DRAIN_HDR + (size_t)n_slots * chunk_size;
	memset(d, 0, sizeof(*d));
	d->fd = d->file_fd = -1;
	d->fd = memfd_create("fntrace-ring", MFD_CLOEXEC);
	if (d->fd < 0)
		return -1;
	if (ftruncate(d->fd, (off_t)len))
		goto fail;
	d->ctl = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, 0);
	if (d->ctl == MAP_FAILED)
		goto fail;
	d->len = len;
	d->chunk_size = chunk_size;
	d->buf = xmalloc(chunk_size);
	d->ctl->n_slots = n_slots;
	d->ctl->chunk_size = chunk_size;
	d->ctl->recorder_pid = (int32_t)getpid();
	d->ctl->beat_ns = mono_ns();     /* (runtime/drain.c, recorder_gone) */
	__atomic_store_n(&d->ctl->magic, FNT_DRAIN_MAGIC, __ATOMIC_RELEASE);
	return 0;
fail:
	close(d->fd);
	d->fd = -1;
	d->ctl = NULL;
	return -1;
}

/* In the child, before exec: the ring under a number out of the program's
 * way, open across exec, named in the environment. */
void drain_child(struct drain *d)
{
	char buf[16];
	int fd;
	if (!d->ctl)
		return;
	fd = fcntl(d->fd, F_DUPFD, 900);       /* without FD_CLOEXEC */
	if (fd < 0)
		return;
	snprintf(buf, sizeof(buf), "%d", fd);
	setenv(FNTRACE_ENV_DRAIN_FD, buf, 1);
}

/* the bytes of a slot up to its last non-zero 8 bytes (0: empty) */
static size_t used_len(const uint8_t *s, size_t len)
{
	const uint64_t *w = (const uint64_t *)s;
	size_t n = len / 8;
	while (n && !w[n - 1])
		n--;
	return n * 8;
}

/* the owner's trace file, once its runtime has said which it is */
static int open_file(struct drain *d, const char *dir)
{
	struct stat st;
	char path[8192];
	if (d->file_fd >= 0)
		return 0;
	if (!__atomic_load_n(&d->ctl->file_set, __ATOMIC_ACQUIRE))
		return -1;
	char name[sizeof(d->ctl->file_name) + 1];
	memcpy(name, d->ctl->file_name, sizeof(d->ctl->file_name));
	name[sizeof(d->ctl->file_name)] = 0;
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".."))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (uint64_t)st.st_ino != d->ctl->file_ino || (uint64_t)st.st_dev != d->ctl->file_dev) {
		close(fd);
		return -1;
	}
	d->file_fd = fd;
	return 0;
}

/* A slot that could not be written (EFBIG, EIO): its events are counted
 * as lost for lack of space in the file's header, where the runtime
 * counts its own (atomic adds on the same page), those that a partial copy
 * (or the failed write) put in the file already excepted: the file holds a
 * prefix of the slot's events under the same chunk header. */
static void slot_lost(struct drain *d, const uint8_t *m, uint64_t off)
{
	uint64_t n = fnt_chunk_events(m, d->chunk_size), in_file = 0;
	if (!d->hdr) {
		void *h = mmap(NULL, FNT_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, d->file_fd, 0);
		d->hdr = h == MAP_FAILED ? NULL : h;
	}
	memset(d->buf, 0, d->chunk_size);
	if (pread(d->file_fd, d->buf, d->chunk_size, (off_t)off) > 16 && !memcmp(d->buf, m, 16))
		in_file = fnt_chunk_events(d->buf, d->chunk_size);
	if (d->hdr && in_file < n)
		__atomic_fetch_add(&d->hdr->lost_nospace, n - in_file, __ATOMIC_RELAXED);
}

/* The file holds the chunk at off whole, though the slot's copy ends
 * before its end: the program reserves its chunks' blocks, but not one
 * whose seccomp filter forbids it fstat (runtime/sandbox.c: it says so in
 * the ring), and a file that ends inside its last chunk reads as cut short */
static void whole_chunk(struct drain *d, uint64_t off, size_t n)
{
	if (n < d->chunk_size && __atomic_load_n(&d->ctl->unreserved, __ATOMIC_RELAXED))
		(void)fallocate(d->file_fd, 0, (off_t)off, (off_t)d->chunk_size);
}

/* A partial copy put bytes of slot i in the file up to high[i]; the writer
 * has since erased some (-t, -C, a time= trigger: the data ends at n now).
 * Zero them in the file too, or a reader would find them after the end. */
static void clear_tail(struct drain *d, uint32_t i, uint64_t off, size_t n)
{
	static const uint8_t zeros[4096];
	size_t at = n;
	while (at < d->high[i]) {
		size_t k = d->high[i] - at < sizeof(zeros) ? d->high[i] - at : sizeof(zeros);
		if (pwrite(d->file_fd, zeros, k, (off_t)off + (off_t)at) != (ssize_t)k)
			return;
		at += k;
	}
	d->high[i] = (uint32_t)n;
	if (d->copied[i] > n)
		d->copied[i] = (uint32_t)(n > 16 ? n - 16 : 0);
	d->walked[i] = 0;       /* (records were taken back: walked again from the header) */
}

/* Where the next partial copy of slot i (m, n bytes used) starts: the last 16 bytes of what
 * was copied (the writer stores 8 bytes at a time from its position, so
 * zeros at the end of the copy may belong to an event that the next store
 * completes), or, if earlier, the first record not whole in the slot.  A
 * record with a body (argument values, a mark, a stack, a thread's name)
 * is written body first and its one-byte head last: a copy that caught
 * the body before the head put a zero head in the file, and copies that
 * start 16 bytes from the end did not go back to it: the reader stopped
 * there, and replay --follow showed nothing more of the thread until the
 * slot was full or the program ended. */
static uint32_t copy_resume(struct drain *d, uint32_t i, const uint8_t *m, size_t n)
{
	/* (the walk goes on from where the last one stopped: from the header
	 * each time, it would cost the record process about 0.3 ms a full
	 * slot every 50 ms) */
	size_t b = d->walked[i] ? d->walked[i] : FNT_CHUNK_HDR_SIZE, len;
	int ev;
	while (b < n && (len = fnt_record_len(m + b, m + d->chunk_size, &ev)) && b + len <= n)
		b += len;
	d->walked[i] = (uint32_t)b;
	size_t keep = n > 16 ? n - 16 : 0, at = b & ~(size_t)7;
	return (uint32_t)(at < keep ? at : keep);
}

/* Every 50 ms, what the program has added to the slots it is writing goes
 * to the file as well, so that `replay --follow` sees the calls of a
 * running program within a fraction of a second.  Such a copy may catch a
 * later page before an earlier one is complete; the copy made when the slot
 * is done rewrites all of it. */
static void copy_partial(struct drain *d, const char *dir, uint32_t image)
{
	struct fnt_drain_ctl *c = d->ctl;
	uint64_t now = mono_ns();
	if (now - d->last_partial_ns < 50000000ull)
		return;
	d->last_partial_ns = now;
	for (uint32_t i = 0; i < c->n_slots; i++) {
		struct fnt_drain_slot *sl = &c->slot[i];
		if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != FNT_SLOT_WRITING || sl->image != image)
			continue;
		uint8_t *m = fnt_drain_slot_at(c, i, d->chunk_size);
		/* not before the chunk's header is sealed: the writer stores its
		 * magic last, at offset 0, after the other fields, and a copy made
		 * before that left the file's magic zero under copies that start
		 * further on, until the slot was full or the program ended: the
		 * reader skipped the chunk (replay --follow showed none of the
		 * thread's calls for a minute).  The acquire makes the fields
		 * stored before the magic visible to the copy */
		if (!d->copied[i] && __atomic_load_n((const uint32_t *)m, __ATOMIC_ACQUIRE) != FNT_CHUNK_MAGIC)
			continue;
		size_t n = used_len(m, d->chunk_size);
		/* the last 16 bytes go again next time: the writer stores 8 bytes
		 * at a time from its position, so zeros at the end of what was
		 * copied may belong to an event that the next store completes */
		if (n < d->copied[i])
			clear_tail(d, i, sl->off, n);     /* the writer erased what it had written (-t, -C, time=) */
		if (n <= d->copied[i])
			continue;
		/* read from the end backwards (8-byte aligned, n and copied
		 * are multiples of 8): every byte read was stored before the
		 * bytes read ahead of it, so the copy is a prefix of the
		 * events, never a gap followed by later ones */
		size_t from = d->copied[i];
		/* where the next copy starts, from the slot as it is before this
		 * copy reads it: a record whole now is whole in the copy (walked
		 * after it, a head stored meanwhile was taken as copied) */
		uint32_t resume = copy_resume(d, i, m, n);
		for (size_t k = n; k > from; k -= 8) {
			uint64_t v = __atomic_load_n((const uint64_t *)(m + k - 8), __ATOMIC_RELAXED);
			memcpy(d->buf + k - 8, &v, 8);
		}
		/* only the records whole when the slot was walked go to the file:
		 * an event stored while the copy read backwards can straddle its
		 * last word, its head copied and the rest not (a 2-byte event
		 * `96 ?` went to the file as `96 00`).  The next copy mends
		 * that, but a group kill leaves none, and the reader found a
		 * damaged byte (group-kill, 1 kill in 40 under load) */
		size_t upto = d->walked[i];
		if (upto <= from || upto > n)
			continue;
		if (pwrite(d->file_fd, d->buf + from, upto - from, (off_t)sl->off + (off_t)from) ==
		    (ssize_t)(upto - from)) {
			whole_chunk(d, sl->off, n);
			d->copied[i] = resume;
			if (upto > d->high[i])
				d->high[i] = (uint32_t)upto;
		}
	}
	(void)dir;
}

/* record leaves while the process that holds the ring may live on: the
 * slots it is copying itself (saving) are copied here as well, unchanged
 * and left to it.  Nobody zeroes a saving slot, so the two copies are the
 * same bytes; if the process dies before its copy is done, this one is in
 * the file. */
static void copy_saving(struct drain *d, const char *dir)
{
	struct fnt_drain_ctl *c = d->ctl;
	if (!c || d->file_fd < 0)
		return;
	for (uint32_t i = 0; i < c->n_slots; i++) {
		struct fnt_drain_slot *sl = &c->slot[i];
		if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != FNT_SLOT_SAVING)
			continue;
		uint8_t *m = fnt_drain_slot_at(c, i, d->chunk_size);
		size_t n = used_len(m, d->chunk_size);
		whole_chunk(d, sl->off, n);
		if (n && fnt_pwrite_all(d->file_fd, m, n, (off_t)sl->off) && !d->write_error) {
			error_msg("cannot write the trace file in '%s': %s", dir, strerror(errno));
			d->write_error = 1;
		}
	}
}

int drain_poll(struct drain *d, const char *dir, int final)
{
	struct fnt_drain_ctl *c = d->ctl;
	int copied = 0;
	if (!c)
		return 0;
	__atomic_store_n(&c->beat_ns, mono_ns(), __ATOMIC_RELAXED);   /* alive (runtime/drain.c, recorder_gone) */
	if (open_file(d, dir))
		return 0;
	uint32_t image = __atomic_load_n(&c->image, __ATOMIC_ACQUIRE);
	d->writing = 0;
	for (uint32_t i = 0; i < c->n_slots; i++) {
		struct fnt_drain_slot *sl = &c->slot[i];
		uint32_t st = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
		/* saving: a thread of the program copies it, having given up on
		 * record; once the program is gone, a copy it left half done (its
		 * slot keeps every byte: format/drain.h).  copied: in the file */
		if (st == FNT_SLOT_FREE || st == FNT_SLOT_COPIED || st == FNT_SLOT_COPYING ||
		    (st == FNT_SLOT_SAVING && !final))
			continue;
		if (st == FNT_SLOT_WRITING && !final && sl->image == image) {
			d->writing++;
			continue;
		}
		/* record its copier (format/drain.h), or leave it to the thread
		 * that is, or to the next poll */
		if (!__atomic_compare_exchange_n(&sl->state, &st, FNT_SLOT_COPYING, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		uint8_t *m = fnt_drain_slot_at(c, i, d->chunk_size);
		size_t n = used_len(m, d->chunk_size);
		clear_tail(d, i, sl->off, n);
		d->copied[i] = d->high[i] = d->walked[i] = 0;
		whole_chunk(d, sl->off, n);
		ssize_t w = n ? pwrite(d->file_fd, m, n, (off_t)sl->off) : 0;
		if (w != (ssize_t)n) {
			if (!d->write_error)
				error_msg("cannot write the trace file in '%s': %s (the events of a full buffer are "
					  "counted as lost)", dir, w < 0 ? strerror(errno) : "a short write");
			d->write_error = 1;
			slot_lost(d, m, sl->off);
		}
		d->chunks++;
		copied++;
		/* zeroed and freed only if the program has not taken the copy
		 * over meanwhile, finding record gone (a pid of another pid
		 * namespace): it may be reading it still */
		__atomic_store_n(&c->beat_ns, mono_ns(), __ATOMIC_RELAXED);
		uint32_t mine = FNT_SLOT_COPYING;
		if (!__atomic_compare_exchange_n(&sl->state, &mine, FNT_SLOT_COPIED, 0, __ATOMIC_SEQ_CST,
						 __ATOMIC_RELAXED))
			continue;
		/* nor once the program has given up on record: its exit copies
		 * slots it finds being written without taking them, and one of
		 * them may be this one, finished since */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(&c->given_up, __ATOMIC_SEQ_CST))
			continue;
		/* the header first (a snapshot that finds it changed takes the
		 * file's copy: runtime/ring.c, copy_slot), then the rest */
		if (n >= 16) {
			__atomic_store_n((uint64_t *)m, 0, __ATOMIC_RELAXED);
			__atomic_store_n((uint64_t *)m + 1, 0, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			memset(m + 16, 0, n - 16);
		} else {
			memset(m, 0, n);
		}
		__atomic_store_n(&sl->state, FNT_SLOT_FREE, __ATOMIC_RELEASE);
	}
	if (!final)
		copy_partial(d, dir, image);
	return copied;
}

/* How long the drain sleeps between polls.  Each wake-up costs record two
 * system calls and a context switch, often on the CPU of a program thread:
 * polling again 100 us after each copy, as it did, woke about 3,000 times a
 * second for about one slot each.  So the sleep adapts to what a poll finds,
 * against the room the writers had: the slots neither full nor being
 * written (every thread holds one slot while it writes, idle or not).
 * - a writer waited for a slot (the runtime counts it): the shortest sleep;
 * - the writers filled half their room or more: the shortest sleep;
 *   a quarter or more: half as long;
 * - they filled fewer than 2 slots and under a sixteenth of it: twice as
 *   long, up to a cap that takes the writers at least 1 GB/s to outrun
 *   (8 ms with the default 256 KiB slots; never under the 1.6 ms that
 *   record used to sleep at most, for small --chunk-size).
 * The program's exit ends a sleep at once (SIGCHLD). */
#define DRAIN_SLEEP_MIN 50000L
#define DRAIN_SLEEP_MAX 8000000L

static long drain_sleep_cap(const struct drain *d)
{
	/* the writers' room, at 1 GB/s (about 1 ns a byte) */
	long cap = (long)((uint64_t)d->chunk_size * (d->ctl->n_slots / 2));
	if (cap > DRAIN_SLEEP_MAX)
		cap = DRAIN_SLEEP_MAX;
	return cap < 1600000L ? 1600000L : cap;
}

static long drain_next_sleep(struct drain *d, long sleep_ns, int k, uint64_t *waits)
{
	uint64_t w = __atomic_load_n(&d->ctl->waits, __ATOMIC_RELAXED);
	uint32_t n = d->ctl->n_slots;
	long room = (long)n - (long)d->writing;   /* the free slots the writers had, about */
	d->polls++;
	if (room < 1)
		room = 1;   /* every slot is held by a thread: nothing to copy until one fills it */
	if (w != *waits || (long)k * 2 >= room) {
		*waits = w;
		return DRAIN_SLEEP_MIN;
	}
	if ((long)k * 4 >= room)
		sleep_ns /= 2;
	else if (k < 2 && (long)k * 16 < room)
		sleep_ns *= 2;
	if (sleep_ns < DRAIN_SLEEP_MIN)
		sleep_ns = DRAIN_SLEEP_MIN;
	long cap = drain_sleep_cap(d);
	return sleep_ns > cap ? cap : sleep_ns;
}

struct drain_tick {
	struct drain *d;
	const char *dir;
	long sleep_ns;
	uint64_t waits;
};

static long drain_tick(void *ctx)
{
	struct drain_tick *x = ctx;
	int k = drain_poll(x->d, x->dir, 0);
	x->sleep_ns = drain_next_sleep(x->d, x->sleep_ns, k, &x->waits);
	return x->sleep_ns;
}

int drain_wait(struct drain *d, const char *dir, pid_t child, int *status)
{
	struct drain_tick x = { d, dir, 100000, __atomic_load_n(&d->ctl->waits, __ATOMIC_RELAXED) };
	if (wait_child(child, status, drain_tick, &x))
		return -1;
	/* the program is gone: what it was writing is final.  Unless the ring
	 * is held by another process of the program (sh -c 'prog &', a
	 * launcher that forks it), which may live on: its slots being written
	 * are copied as they are, now (not at the next 50 ms), and it copies
	 * them itself as it goes on, finding record gone.  Whether it lives
	 * cannot be told from here: a zombie that nobody reaped answers
	 * kill(pid, 0), and the pid may be one of another pid namespace; a
	 * final copy frees the slots under a writer that lives */
	/* a ring nobody has taken yet is closed (owner -1), so that no process
	 * takes it while the final poll copies it: it would free the slot
	 * under that process's writer */
	int32_t owner = 0;
	if (__atomic_compare_exchange_n(&d->ctl->owner_pid, &owner, -1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		owner = -1;
	if (owner > 0 && owner != child) {
		/* gone first, then the last copies: either the process sees record
		 * gone (and copies its slots itself at its exit), or these copies
		 * see what it wrote before it looked (runtime/drain.c) */
		__atomic_store_n(&d->ctl->recorder_pid, 0, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		d->last_partial_ns = 0;
		drain_poll(d, dir, 0);
		copy_saving(d, dir);
	} else {
		drain_poll(d, dir, 1);
	}
	/* gone, in so many words: a process that holds the ring would
	 * otherwise go by this pid, which may be another process's by then */
	__atomic_store_n(&d->ctl->recorder_pid, 0, __ATOMIC_RELEASE);
	return 0;
}

void drain_close(struct drain *d)
{
	struct stat st;
	if (d->ctl && getenv("FNTRACE_DRAIN_DEBUG"))
		/* the ring's pages ever touched: the memfd's blocks */
		fprintf(stderr, "fntrace: drain: %llu chunks copied, writers waited %llu times, given up %llu, "
			"%llu polls, %lld of %zu KiB of the ring touched\n", (unsigned long long)d->chunks,
			(unsigned long long)d->ctl->waits, (unsigned long long)d->ctl->given_up,
			(unsigned long long)d->polls, fstat(d->fd, &st) ? -1LL : (long long)st.st_blocks / 2,
			d->len / 1024);
	if (d->ctl)
		munmap(d->ctl, d->len);
	if (d->fd >= 0)
		close(d->fd);
	if (d->hdr)
		munmap(d->hdr, FNT_HEADER_SIZE);
	if (d->file_fd >= 0)
		close(d->file_fd);
	free(d->buf);
	d->hdr = NULL;
	d->buf = NULL;
	d->ctl = NULL;
	d->fd = d->file_fd = -1;
}
