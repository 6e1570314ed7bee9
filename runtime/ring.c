/*
 * ring.c - snapshots of a running trace (the flight recorder's dump).
 *
 * The rings themselves live in tracefile.c (a thread rewrites its oldest
 * chunk, see thread_chunk_start) and need nothing at a crash or a kill: the
 * mapping is the file.  A snapshot freezes the trace as it is now into
 * <trace dir>/snapshot-<name>/<pid>-<n>.fnt: the header (marked as a
 * snapshot, with its time) then every chunk, read through a read-only
 * mapping of the trace from the end backwards (see copy_range_back).
 * The caller's own thread is consistent; a chunk another thread was
 * writing ends in a torn tail at worst, which the reader treats as damage,
 * and a ring chunk another thread rewrote during the copy is left out
 * (its header no longer matches: see fnt_snapshot_write).
 *
 * Everything here is async-signal-safe (the snapshot signal): syscalls and
 * string handling by hand, no stdio, no malloc.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fntrace.h"
#include "format/drain.h"
#include "runtime/runtime.h"

static int snap_lock;
static unsigned snap_signals;


static size_t put_str(char *buf, size_t at, size_t cap, const char *s)
{
	while (*s && at + 1 < cap)
		buf[at++] = *s++;
	buf[at] = 0;
	return at;
}

static size_t put_uint(char *buf, size_t at, size_t cap, unsigned v)
{
	char tmp[16];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 15);
	while (n && at + 1 < cap)
		buf[at++] = tmp[--n];
	buf[at] = 0;
	return at;
}

/* [from, from+len) of the trace (mapped at map, which is file offset
 * map_off) to the same offsets of out, from the end to the start, 8 bytes at
 * a time: a thread appends its events in ascending order with 8-byte
 * stores, so whatever this reads at an address, it has already read every
 * later byte as it was after that byte's event: the copy holds a prefix of
 * the events, never a gap of zeros followed by later events (which a
 * forward copy, the kernel's included, would catch). */
static int copy_range_back(const uint8_t *map, off_t map_off, int out, off_t from, off_t len)
{
	uint64_t buf[512];
	while (len > 0) {
		off_t piece = (from + len) % 4096 ? (from + len) % 4096 : 4096;
		if (piece > len)
			piece = len;
		off_t at = from + len - piece;
		const volatile uint8_t *src = map + (at - map_off);
		size_t n = (size_t)piece;
		uint8_t *dst = (uint8_t *)buf;
		size_t i = n;
		while (i >= 8 && ((uintptr_t)(src + i) & 7) == 0) {
			i -= 8;
			uint64_t v = *(const volatile uint64_t *)(const volatile void *)(src + i);
			memcpy(dst + i, &v, 8);
		}
		while (i > 0) {
			i--;
			dst[i] = src[i];
		}
		if (pwrite(out, buf, n, at) != (ssize_t)n)
			return -1;
		len -= piece;
	}
	return 0;
}

/* what a chunk held when the snapshot began */
struct chunk_plan {
	uint32_t seq, thread;
	uint8_t type;               /* 0: not sealed then (skipped) */
	off_t off;
};

/* Copy one chunk if it still holds what the plan saw: its header, then its
 * data from the end, then its header again.  A chunk that changed (a ring
 * rewrote it: magic 0, then a higher seq; or one started since the plan)
 * may hold an old header over new data or the reverse: it is left out (it
 * reads as zeros in the copy). */
static int copy_chunk(int in, int out, const struct chunk_plan *c, off_t len)
{
	struct fnt_chunk_header was, now;
	if (!c->type || len < (off_t)sizeof(was))
		return 0;
	if (pread(in, &was, sizeof(was), c->off) != (ssize_t)sizeof(was))
		return -1;
	if (was.magic != FNT_CHUNK_MAGIC || was.type != c->type ||
	    (c->type == FNT_CHUNK_EVENTS && (was.seq != c->seq || was.thread != c->thread)))
		return 0;
	const uint8_t *map = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, in, c->off);
	if (map == MAP_FAILED)
		return -1;
	int bad = pwrite(out, &was, sizeof(was), c->off) != (ssize_t)sizeof(was) ||
		  copy_range_back(map, c->off, out, c->off + (off_t)sizeof(was), len - (off_t)sizeof(was));
	munmap((void *)map, (size_t)len);
	if (bad)
		return -1;
	if (c->type != FNT_CHUNK_EVENTS)
		return 0;
	if (pread(in, &now, sizeof(now), c->off) != (ssize_t)sizeof(now) || now.magic != FNT_CHUNK_MAGIC ||
	    now.seq != was.seq || now.thread != was.thread) {
		uint32_t zero = 0;
		if (pwrite(out, &zero, sizeof(zero), c->off) != (ssize_t)sizeof(zero))
			return -1;
	}
	return 0;
}

/* Event chunks newest first (highest seq): a thread's newest chunk goes in
 * as a prefix of its events, and the older ones, copied after it, were
 * complete before it began.  Copying oldest first would let a thread finish
 * a chunk after its (partial) copy and go on in the next one: a gap. */
static void plan_sort(struct chunk_plan *p, size_t n)
{
	for (size_t gap = n / 2; gap > 0; gap /= 2)
		for (size_t i = gap; i < n; i++) {
			struct chunk_plan x = p[i];
			size_t j = i;
			uint64_t kx = x.type == FNT_CHUNK_EVENTS ? x.seq : UINT64_MAX;
			while (j >= gap) {
				uint64_t kj = p[j - gap].type == FNT_CHUNK_EVENTS ? p[j - gap].seq : UINT64_MAX;
				if (kj >= kx)
					break;
				p[j] = p[j - gap];
				j -= gap;
			}
			p[j] = x;
		}
}

/* a chunk still in the drained ring (drain.c), to the snapshot at its
 * offset: as copy_chunk, from the slot instead of the file */
static int snap_out = -1, snap_bad;
static uint64_t slot_offs[FNT_DRAIN_MAX_SLOTS];   /* the chunks copied from slots */
static unsigned n_slot_offs;

static void copy_slot(const uint8_t *m, uint64_t off, uint32_t len)
{
	struct fnt_chunk_header was, now;
	memcpy(&was, m, sizeof(was));
	if (snap_bad || was.magic != FNT_CHUNK_MAGIC)
		return;                 /* zeroed since drain.c looked: the file has it whole */
	snap_bad = pwrite(snap_out, &was, sizeof(was), (off_t)off) != (ssize_t)sizeof(was) ||
		   copy_range_back(m, (off_t)off, snap_out, (off_t)off + (off_t)sizeof(was), len - sizeof(was));
	memcpy(&now, m, sizeof(now));
	if (!snap_bad && (now.magic != was.magic || now.seq != was.seq || now.thread != was.thread)) {
		/* the slot was copied out, zeroed (its header first) and maybe
		 * reused meanwhile: its copier wrote it into the file before
		 * zeroing it, so the file's copy goes into the snapshot.  (It
		 * was left out, the file's copy too: a chunk missing.) */
		uint32_t zero = 0;
		snap_bad = pwrite(snap_out, &zero, sizeof(zero), (off_t)off) != (ssize_t)sizeof(zero);
		return;
	}
	if (n_slot_offs < sizeof(slot_offs) / sizeof(slot_offs[0]))
		slot_offs[n_slot_offs++] = off;
}

int fnt_snapshot_write(const char *name)
{
	struct fnt_file_header *h = fnt_trace_header();
	const char *path = fnt_trace_path(), *base;
	char out[4400];
	size_t at, dir_end;
	struct stat st;
	int fd, dfd = -1, ret = -1;

	if (!h || !path[0])
		return -1;
	if (__atomic_exchange_n(&snap_lock, 1, __ATOMIC_ACQUIRE))
		return -1;              /* one snapshot at a time */
	/* its open, pwrite and close are cancellation points: a thread
	 * cancelled there (at a snapshot trigger's call) left the lock held
	 * and a half-written snapshot */
	int cancel, cancel_off = fnt_cancel_off(&cancel);
	if (fnt_snapshot_calls_denied())
		goto out;               /* the program's seccomp filter forbids what it takes (sandbox.c) */
	int in = fnt_trace_fd();
	if (in < 0 || fstat(in, &st))
		goto out;
	if (!fnt_fsize_allows(st.st_size))   /* a copy past RLIMIT_FSIZE would raise SIGXFSZ */
		goto out;
	base = strrchr(path, '/');
	if (!base)
		goto out;
	at = put_str(out, 0, sizeof(out), "");
	for (const char *c = path; c < base && at + 1 < sizeof(out); c++)
		out[at++] = *c;
	out[at] = 0;
	at = put_str(out, at, sizeof(out), "/snapshot-");
	/* the name, reduced to characters that are safe in a file name */
	for (size_t i = 0; name && name[i] && i < 64 && at + 1 < sizeof(out); i++) {
		char c = name[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '-' || c == '_' || c == '.';
		out[at++] = ok ? c : '_';
	}
	if (!name || !name[0])
		at = put_str(out, at, sizeof(out), "api");
	out[at] = 0;
	dir_end = at;
	/* the snapshot directory is ours (made here, or by an earlier
	 * snapshot of that name): a symlink or another user's directory is not
	 * followed; an earlier snapshot file of ours is replaced, not truncated */
	if (mkdir(out, FNT_DIR_MODE(fnt_file_mode)) && errno != EEXIST)
		goto out;
	dfd = open(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) || st.st_uid != geteuid() || (st.st_mode & 022))
		goto out;
	if (fnt_file_mode != 0600)
		fchmod(dfd, FNT_DIR_MODE(fnt_file_mode));
	if (fstat(in, &st))
		goto out;
	at = put_str(out, dir_end, sizeof(out), base);
	if (at + 1 >= sizeof(out))
		goto out;
	unlinkat(dfd, base + 1, 0);
	fd = fnt_fd_high(openat(dfd, base + 1, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fnt_file_mode));
	if (fd < 0)
		goto out;
	if (fnt_file_mode != 0600)
		fchmod(fd, fnt_file_mode);
	/* chunks first, then the header: a snapshot file with a valid magic is
	 * complete.  The chunks still in the drained ring first: they are the
	 * newest of each thread (see plan_sort) */
	snap_out = fd;
	snap_bad = 0;
	n_slot_offs = 0;
	fnt_drain_each(copy_slot);
	if (snap_bad)
		goto close;
	{
		size_t n = (size_t)((st.st_size - (off_t)FNT_HEADER_SIZE + h->chunk_size - 1) / h->chunk_size);
		size_t bytes = (n * sizeof(struct chunk_plan) + 4095) & ~(size_t)4095;
		struct chunk_plan *plan = n ? mmap(NULL, bytes, PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;
		int bad = 0;
		if (n && plan == MAP_FAILED)
			goto close;
		for (size_t i = 0; i < n; i++) {
			struct fnt_chunk_header ch;
			plan[i].off = (off_t)FNT_HEADER_SIZE + (off_t)i * h->chunk_size;
			plan[i].type = 0;
			if (pread(in, &ch, sizeof(ch), plan[i].off) == (ssize_t)sizeof(ch) &&
			    ch.magic == FNT_CHUNK_MAGIC && (ch.type == FNT_CHUNK_EVENTS || ch.type == FNT_CHUNK_META)) {
				plan[i].type = ch.type;
				plan[i].seq = ch.seq;
				plan[i].thread = ch.thread;
			}
		}
		plan_sort(plan, n);
		for (size_t i = 0; i < n && !bad; i++) {
			/* a chunk copied from its slot: the file holds an older
			 * part of it (record's copies), which must not overwrite it */
			int in_slot = 0;
			for (unsigned k = 0; k < n_slot_offs; k++)
				in_slot |= slot_offs[k] == (uint64_t)plan[i].off;
			if (in_slot)
				continue;
			off_t len = st.st_size - plan[i].off;
			if (len > (off_t)h->chunk_size)
				len = h->chunk_size;
			bad = copy_chunk(in, fd, &plan[i], len);
		}
		if (n)
			munmap(plan, bytes);
		if (bad)
			goto close;
	}
	{
		struct fnt_file_header copy;
		memcpy(&copy, h, sizeof(copy));
		copy.flags |= FNT_FLAG_SNAPSHOT;
		/* the chunks copied, not the ones handed out since */
		uint64_t copied = (uint64_t)(st.st_size - (off_t)FNT_HEADER_SIZE) / h->chunk_size;
		if (copy.next_chunk > copied)
			copy.next_chunk = copied;
		if (copy.chunks_reserved > copied)
			copy.chunks_reserved = copied;
		copy.reserved[FNT_RES_SNAP_TICKS] = fnt_now();
		if (pwrite(fd, &copy, sizeof(copy), 0) != (ssize_t)sizeof(copy))
			goto close;
		if (ftruncate(fd, st.st_size) && st.st_size >= (off_t)FNT_HEADER_SIZE)
			goto close;
	}
	ret = 0;
close:
	close(fd);
	if (ret)
		unlinkat(dfd, base + 1, 0);
out:
	if (dfd >= 0)
		close(dfd);
	__atomic_store_n(&snap_lock, 0, __ATOMIC_RELEASE);
	if (cancel_off)
		fnt_cancel_back(cancel);
	return ret;
}

FNT_EXPORT int fnt__snapshot(const char *name)
{
	return fnt_snapshot_write(name);
}

static void on_snapshot_signal(int sig)
{
	int saved = errno;
	char name[32];
	size_t at = put_str(name, 0, sizeof(name), "signal-");
	(void)sig;
	put_uint(name, at, sizeof(name), __atomic_add_fetch(&snap_signals, 1, __ATOMIC_RELAXED));
	fnt_snapshot_write(name);
	errno = saved;
}

/* FNTRACE_SNAPSHOT_SIGNAL=N: a snapshot "signal-<k>" at each signal N (the
 * program must not install its own handler for it).  A fault signal, KILL
 * or STOP is ignored (fntrace record refuses them). */
void fnt_snapshot_signal_init(void)
{
	const char *env = getenv(FNTRACE_ENV_SNAPSHOT_SIGNAL);
	struct sigaction sa;
	int sig;

	if (!env || !*env)
		return;
	sig = atoi(env);
	/* a fault signal returns to the faulting instruction, which faults
	 * again: a snapshot each time, forever; KILL and STOP cannot be caught */
	if (sig <= 0 || sig >= NSIG || sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	    sig == SIGKILL || sig == SIGSTOP)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_snapshot_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (!sigaction(sig, &sa, NULL))
		fnt_own_signal(sig);
}
