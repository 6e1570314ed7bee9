/*
 * drain.c - event chunks written into the ring that `fntrace record`
 * drains (format/drain.h, doc/perf-floor.md).
 *
 * Mapping a new chunk of the trace file costs the kernel about 4 us per
 * 4 KiB page (allocate, zero, insert into the page cache, map): 2 ns per
 * event at 2 bytes an event.  Under `record`, the process's event chunks
 * live in a fixed ring of slots in a memfd that the record process maps as
 * well; the thread reuses the ring's pages (no page fault), and record,
 * which is alive whatever happens to the program, copies each full slot into
 * the file with pwrite (page-cache work in bulk, on its own CPU).  The file
 * ends byte for byte as it would have without the ring.
 *
 * Only the process image that claims the ring first uses it.  A forked child
 * lets go of its copy of a claimed ring and maps its chunks from its own file,
 * as every process did before; so does a program run without `record`.  A
 * ring still unclaimed at the fork (the parent wrote no event) may become the
 * child's, drained into the child's file.  A
 * later image of the same process (after exec) tells record, by bumping the
 * ring's image, that the old image's slots are final.
 *
 * Everything here runs on the rare path (a chunk is full, about every
 * 130,000 events).  When every slot is taken, the thread waits for record, a
 * few microseconds at a time; if record is gone, or nothing moves for two
 * seconds, the runtime stops using the ring for good and maps its chunks
 * from the file again: it never blocks its host for long, and never loses
 * what it wrote (it copies the finished slots into its file itself, and
 * at its exit, if record is gone, the slots still being written; a slot
 * has one copier, record or a thread: format/drain.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "fntrace.h"
#include "format/drain.h"
#include "runtime/runtime.h"

static struct fnt_drain_ctl *ctl;
static uint8_t *slots;            /* NULL: not draining (file chunks, as without record) */
static size_t ring_len;
static uint32_t n_slots, slot_size, my_image;
static int ring_fd = -1;          /* the ring handed over (claimed or not yet) */
static int claim_lock;
static char file_name[256];
static uint64_t file_ino, file_dev;

/* the control page of the ring fd names, if it is one; NULL otherwise */
static struct fnt_drain_ctl *peek(int fd, off_t *size)
{
	const struct stat *st = fnt_fstat(fd);
	struct fnt_drain_ctl *c;
	if (!st || !S_ISREG(st->st_mode) || st->st_size < (off_t)FNT_DRAIN_HDR)
		return NULL;
	off_t st_size = st->st_size;
	c = mmap(NULL, FNT_DRAIN_HDR, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		return NULL;
	if (c->magic != FNT_DRAIN_MAGIC || c->n_slots == 0 || c->n_slots > FNT_DRAIN_MAX_SLOTS ||
	    st_size != (off_t)FNT_DRAIN_HDR + (off_t)c->n_slots * c->chunk_size) {
		munmap(c, FNT_DRAIN_HDR);       /* not ours: the number names another file now */
		return NULL;
	}
	*size = st_size;
	return c;
}

/* At start-up, once the trace file exists.  The ring is claimed at the
 * process's first event chunk, not here: a shell or another uninstrumented
 * program that `record` starts first records nothing, and leaves the ring
 * to the program it runs.  A later image of the owner (it exec'ed) tells
 * record that the earlier image's slots are final, and writes its own
 * chunks to its file. */
void fnt_drain_attach(uint32_t chunk_size, const char *trace_path, uint64_t ino, uint64_t dev)
{
	const char *env = getenv(FNTRACE_ENV_DRAIN_FD);
	struct fnt_drain_ctl *c;
	char *end;
	off_t size;
	long fd;

	if (!env || !*env)
		return;
	fd = strtol(env, &end, 10);
	if (*end || fd < 0 || fd > 65535 || !(c = peek((int)fd, &size)))
		return;
	int32_t owner = __atomic_load_n(&c->owner_pid, __ATOMIC_ACQUIRE);
	uint32_t csize = c->chunk_size;
	/* the owner's next image (it exec'ed): its pid in its namespace; the
	 * same pid in another namespace is another process (unshare --pid),
	 * whose bump would make record take the owner's slots for final
	 * while it still writes them */
	if (owner == (int32_t)getpid() && __atomic_load_n(&c->owner_ns, __ATOMIC_ACQUIRE) == fnt_pid_ns)
		__atomic_add_fetch(&c->image, 1, __ATOMIC_RELEASE);
	munmap(c, FNT_DRAIN_HDR);
	const char *base = strrchr(trace_path, '/');
	base = base ? base + 1 : trace_path;
	if (owner || csize != chunk_size || strlen(base) >= sizeof(file_name)) {
		close((int)fd);         /* another process's ring, or not for this chunk size */
		return;
	}
	strcpy(file_name, base);
	file_ino = ino;
	file_dev = dev;
	slot_size = chunk_size;
	ring_fd = (int)fd;
}

/* could the next event chunk go to the ring? */
int fnt_drain_wanted(void)
{
	return __atomic_load_n(&slots, __ATOMIC_RELAXED) || __atomic_load_n(&ring_fd, __ATOMIC_RELAXED) >= 0;
}

int fnt_drain_active(void)
{
	return __atomic_load_n(&slots, __ATOMIC_RELAXED) != NULL;
}

/* the first event chunk: make the ring ours (one thread does it) */
static void claim(void)
{
	struct fnt_drain_ctl *c;
	off_t size;
	int32_t none = 0;
	int cancel;

	if (__atomic_exchange_n(&claim_lock, 1, __ATOMIC_ACQUIRE))
		return;                         /* another thread is at it: the file this time */
	/* (close below is a cancellation point: not with the lock held) */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	if (slots || ring_fd < 0)
		goto out;
	if (!(c = peek(ring_fd, &size)))
		goto drop;
	int ok = c->chunk_size == slot_size && !fnt_denied(SYS_getpid) &&
		 __atomic_compare_exchange_n(&c->owner_pid, &none, (int32_t)getpid(), 0, __ATOMIC_ACQ_REL,
					     __ATOMIC_ACQUIRE);
	if (ok)
		__atomic_store_n(&c->owner_ns, fnt_pid_ns, __ATOMIC_RELEASE);
	munmap(c, FNT_DRAIN_HDR);
	if (!ok)
		goto drop;
	c = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
	if (c == MAP_FAILED)
		goto drop;
	memcpy(c->file_name, file_name, sizeof(c->file_name));
	c->file_ino = file_ino;
	c->file_dev = file_dev;
	__atomic_store_n(&c->file_set, 1, __ATOMIC_RELEASE);
	ring_len = (size_t)size;
	n_slots = c->n_slots;
	my_image = __atomic_load_n(&c->image, __ATOMIC_ACQUIRE);
	ctl = c;
	/* the fd stays open (not close-on-exec): the next image tells record
	 * through it that this one's slots are final */
	__atomic_store_n(&slots, (uint8_t *)c + FNT_DRAIN_HDR, __ATOMIC_RELEASE);
	goto out;
drop:
	close(ring_fd);
	__atomic_store_n(&ring_fd, -1, __ATOMIC_RELEASE);
out:
	__atomic_store_n(&claim_lock, 0, __ATOMIC_RELEASE);
	pthread_setcancelstate(cancel, NULL);
}

/* the bytes of a slot up to its last non-zero 8 bytes */
static size_t used_len(const uint8_t *m)
{
	const uint64_t *w = (const uint64_t *)m;
	size_t n = slot_size / 8;
	while (n && !__atomic_load_n(&w[n - 1], __ATOMIC_RELAXED))
		n--;
	return n * 8;
}

/* The events of slot m that the file at off does not hold: all of them,
 * less those of a copy record made of the slot while it was being written
 * (a prefix of its events, under the same chunk header). */
static uint64_t slot_events_missing(const uint8_t *m, int fd, off_t off)
{
	uint64_t n = fnt_chunk_events(m, slot_size), in_file = 0;
	const uint8_t *f = fd >= 0 ? mmap(NULL, slot_size, PROT_READ, MAP_SHARED, fd, off) : MAP_FAILED;
	if (f != MAP_FAILED) {
		if (!memcmp(f, m, 16))  /* magic, type, thread, tid, seq */
			in_file = fnt_chunk_events(f, slot_size);
		munmap((void *)f, slot_size);
	}
	return in_file < n ? n - in_file : 0;
}

/* record is gone or stuck: this process copies its slot into its file
 * itself.  Not past RLIMIT_FSIZE (the program may have lowered it since
 * the slot's blocks were reserved: the kernel would kill it with SIGXFSZ):
 * the events of a slot that cannot be written are counted as lost for lack
 * of space, those a copy by record put in the file already excepted.
 * claimed: the caller made itself the slot's copier (copy_claim): the slot is
 * copied, not zeroed (format/drain.h). */
static void write_slot(uint32_t i, int claimed)
{
	int cancel;
	/* pwrite is a cancellation point: a thread cancelled there would leave
	 * a slot it claimed that nobody copies */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	uint8_t *m = fnt_drain_slot_at(ctl, i, slot_size);
	size_t n = used_len(m);
	off_t off = (off_t)ctl->slot[i].off;
	int fd = fnt_trace_fd();
	if (n && (fd < 0 || !fnt_fsize_allows(off + (off_t)n) || pwrite(fd, m, n, off) != (ssize_t)n)) {
		struct fnt_file_header *h = fnt_trace_header();
		if (h)
			__atomic_fetch_add(&h->lost_nospace, slot_events_missing(m, fd, off), __ATOMIC_RELAXED);
	}
	if (claimed)
		__atomic_store_n(&ctl->slot[i].state, FNT_SLOT_COPIED, __ATOMIC_RELEASE);
	pthread_setcancelstate(cancel, NULL);
}

/* Make the caller the copier of slot i, found in state `from` (full, or
 * copying by a record that is gone: format/drain.h): another thread of
 * this process may be about to copy it (give_up's loop, a release, the
 * exit), and so may record, stuck or not quite gone; two copies at once
 * had one zeroing the slot under the other's pwrite, which then wrote
 * zeros over the chunk in the file. */
static int copy_claim(uint32_t i, uint32_t from)
{
	return ctl->slot[i].image == my_image &&
	       __atomic_compare_exchange_n(&ctl->slot[i].state, &from, FNT_SLOT_SAVING, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* How long since record last polled (every 8 ms at most; it beats when it
 * makes the ring too); UINT64_MAX from a record that never beat */
static uint64_t beat_age(void)
{
	uint64_t beat = __atomic_load_n(&ctl->beat_ns, __ATOMIC_RELAXED);
	return beat ? fnt_mono_ns() - beat : UINT64_MAX;
}

/* a record that has not polled for this long may be a zombie */
#define ZOMBIE_BEAT_NS 50000000ull

/* Has process pid ended?  A zombie that nobody has reaped yet has (record
 * killed while its parent does not wait for it), though kill(pid, 0) finds
 * it: a pidfd of it polls readable.  That is asked only of a record that
 * has stopped polling: a live one is told by its heartbeat, so the common
 * exit makes no system call but kill.  pidfd_open is one that a seccomp
 * filter may kill the process for (a sandbox's list of the calls a plain
 * program never makes); it did, at every exit.  Without pidfds (ENOSYS, no
 * descriptor left, a filter that says EPERM), what kill says. */
static int ended(int32_t pid)
{
	/* (a call the program's seccomp filter forbids is not made: sandbox.c) */
	if (!fnt_denied(SYS_kill) && kill(pid, 0) && errno == ESRCH)
		return 1;
	if (beat_age() < ZOMBIE_BEAT_NS || fnt_denied(SYS_pidfd_open))
		return 0;
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return errno == ESRCH;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, 0);
	close(fd);
	return n == 1 && (p.revents & POLLIN);
#else
	return 0;
#endif
}

/* record has left (it says so at its end), or died, or has not polled
 * for 2 s: stopped, or gone with its pid handed to another process.
 * Taking a live record for a gone one only makes this process copy slots
 * itself as well, which the one-copier rule makes safe (format/drain.h). */
static int recorder_gone(void)
{
	int32_t pid = __atomic_load_n(&ctl->recorder_pid, __ATOMIC_ACQUIRE);
	uint64_t age;
	return pid <= 0 || ended(pid) || ((age = beat_age()) != UINT64_MAX && age > 2000000000ull);
}

/* record is gone or stuck: map chunks from the file from now on, and copy
 * out the finished slots (a stuck record that wakes up copies the ones
 * still full when it does: each slot has one copier), and, if record is
 * gone, the slot it was copying when it died */
static void give_up(void)
{
	if (__atomic_exchange_n(&ctl->given_up, 1, __ATOMIC_ACQ_REL))
		return;
	__atomic_store_n(&slots, NULL, __ATOMIC_RELEASE);
	int gone = recorder_gone();
	for (uint32_t i = 0; i < n_slots; i++)
		if (copy_claim(i, FNT_SLOT_FULL) || (gone && copy_claim(i, FNT_SLOT_COPYING)))
			write_slot(i, 1);
}

/* A zeroed slot for the event chunk at file offset `off`, or NULL: map the
 * chunk from the file.  The lowest free slot: when record keeps up, the
 * same few slots come round again, their pages mapped and their lines in
 * the caches (1-2 MiB of the 16 MiB ring on one thread, 5 MiB with four;
 * taken in turn, every slot was, and each first round paid its page
 * faults: doc/perf-floor.md, "The ring's lowest slots"). */
uint8_t *fnt_drain_take(uint64_t off)
{
	uint8_t *s = __atomic_load_n(&slots, __ATOMIC_ACQUIRE);
	uint64_t waited_since = 0;
	uint32_t spins = 0;

	if (!s && __atomic_load_n(&ring_fd, __ATOMIC_RELAXED) >= 0) {
		claim();
		s = __atomic_load_n(&slots, __ATOMIC_ACQUIRE);
	}
	if (!s)
		return NULL;
	if (!__atomic_load_n(&ctl->recorder_pid, __ATOMIC_RELAXED)) {   /* record has left */
		give_up();
		return NULL;
	}
	int cancel;
	/* no cancellation in the waits below (nanosleep), with a chunk half
	 * switched */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	for (;;) {
		uint32_t full = 0;
		for (uint32_t i = 0; i < n_slots; i++) {
			uint32_t free_ = FNT_SLOT_FREE;
			struct fnt_drain_slot *sl = &ctl->slot[i];
			uint32_t st = __atomic_load_n(&sl->state, __ATOMIC_RELAXED);
			full += st == FNT_SLOT_FULL;
			if (st != FNT_SLOT_FREE ||
			    !__atomic_compare_exchange_n(&sl->state, &free_, FNT_SLOT_WRITING, 0, __ATOMIC_ACQUIRE,
							 __ATOMIC_RELAXED))
				continue;
			sl->off = off;
			sl->image = my_image;
			pthread_setcancelstate(cancel, NULL);
			return s + (size_t)i * slot_size;
		}
		/* every slot is held by a thread that writes it (as many threads
		 * as slots, each with a chunk open, idle or not): record has
		 * nothing to free, so waiting for it would only stall this thread.
		 * This chunk is mapped from the file (the ring stays in use) */
		if (!full)
			break;
		/* every slot is taken, some full: record is behind, or gone */
		uint64_t now = fnt_mono_ns();
		if (!waited_since) {
			waited_since = now;
			__atomic_add_fetch(&ctl->waits, 1, __ATOMIC_RELAXED);
		}
		/* (record's state every 64 waits: it costs system calls) */
		/* (no sleeping allowed by a seccomp filter: sandbox.c) */
		if ((spins++ % 64 == 0 && recorder_gone()) || now - waited_since > 2000000000ull ||
		    fnt_denied(SYS_clock_nanosleep) || fnt_denied(SYS_nanosleep)) {
			give_up();
			break;
		}
		struct timespec ts = { 0, 20000 };
		nanosleep(&ts, NULL);
	}
	pthread_setcancelstate(cancel, NULL);
	return NULL;
}

/* The chunk of the slot just taken has no blocks reserved in the file
 * (tracefile.c, a seccomp filter that forbids fstat): record makes the file
 * reach its end when it copies it (tool/record-drain.c, whole_chunk) */
void fnt_drain_unreserved(void)
{
	if (ctl)
		__atomic_store_n(&ctl->unreserved, 1, __ATOMIC_RELAXED);
}

/* the chunk in slot m is finished: record may copy it out (or this
 * thread, once the ring is given up) */
void fnt_drain_release(uint8_t *m)
{
	size_t i = (size_t)(m - (uint8_t *)ctl - FNT_DRAIN_HDR) / slot_size;
	__atomic_store_n(&ctl->slot[i].state, FNT_SLOT_FULL, __ATOMIC_RELEASE);
	if (__atomic_load_n(&ctl->given_up, __ATOMIC_ACQUIRE) && copy_claim((uint32_t)i, FNT_SLOT_FULL))
		write_slot((uint32_t)i, 1);
}

/* at exit: if record is gone, the slots still being written are copied out
 * here (they would be lost with the process), the full ones nobody copies,
 * and the one record was copying when it died.  (A slot another thread is
 * copying is its to finish, or record's if this process dies first.) */
void fnt_drain_exit(void)
{
	if (!ctl)
		return;
	/* this process's last events, then record's state; record leaving
	 * early does the reverse (tool/record-drain.c, drain_wait): one of the
	 * two sees the other */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* (given up on a stuck record: it may never come back) */
	if (!__atomic_load_n(&ctl->given_up, __ATOMIC_ACQUIRE) && !recorder_gone())
		return;
	/* before looking at the slots: record zeroes none it copies after
	 * this (the ones read below as being written are copied untaken) */
	__atomic_store_n(&ctl->given_up, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t i = 0; i < n_slots; i++) {
		uint32_t st = __atomic_load_n(&ctl->slot[i].state, __ATOMIC_ACQUIRE);
		if (st == FNT_SLOT_WRITING && ctl->slot[i].image == my_image)
			write_slot(i, 0);
		else if ((st == FNT_SLOT_FULL || st == FNT_SLOT_COPYING) && copy_claim(i, st))
			write_slot(i, 1);
	}
}

/* is m a slot of the ring (rather than a mapping of the file)? */
int fnt_drain_owns(const uint8_t *m)
{
	const uint8_t *base = (const uint8_t *)ctl;
	return ctl && m >= base + FNT_DRAIN_HDR && m < base + ring_len;
}

/* the slots this image has taken, for a snapshot: call fn(slot, file offset) */
void fnt_drain_each(void (*fn)(const uint8_t *slot, uint64_t off, uint32_t len))
{
	if (!ctl)
		return;
	for (uint32_t i = 0; i < n_slots; i++) {
		const uint8_t *m = fnt_drain_slot_at(ctl, i, slot_size);
		uint32_t st = __atomic_load_n(&ctl->slot[i].state, __ATOMIC_ACQUIRE);
		/* the chunk's magic is stored (release) after its slot's offset */
		if (st == FNT_SLOT_FREE || ctl->slot[i].image != my_image ||
		    !__atomic_load_n((const uint32_t *)m, __ATOMIC_ACQUIRE))
			continue;
		fn(m, ctl->slot[i].off, slot_size);
	}
}

/* In a forked child: a ring the parent claimed, and the chunks in it, are
 * the parent's. */
void fnt_drain_fork_child(void)
{
	if (ctl) {
		munmap(ctl, ring_len);
		close(ring_fd);
		ring_fd = -1;
	}
	/* a ring nobody has claimed yet stays on offer: the child (or the
	 * program it execs: record -- sh -c prog) may be the one that records */
	ctl = NULL;
	slots = NULL;
	claim_lock = 0;
}

/* ...and once the child has its own file: if it takes the ring that is
 * still on offer, record copies its slots into that file, not into the
 * parent's (which the parent, having written nothing, removes) */
void fnt_drain_fork_file(const char *trace_path, uint64_t ino, uint64_t dev)
{
	const char *base = strrchr(trace_path, '/');
	base = base ? base + 1 : trace_path;
	if (ring_fd < 0 || strlen(base) >= sizeof(file_name))
		return;
	strcpy(file_name, base);
	file_ino = ino;
	file_dev = dev;
}
