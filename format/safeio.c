/*
 * safeio.c - the reader's defences against hostile files (safeio.h).
 *
 * Owns what the rest of the reader and the symbolizer must not do on their
 * own: hashing keys that a trace chooses (with a seed it cannot know),
 * opening a path that a trace directory holds or a trace names (regular
 * files only, checked before they are opened for reading, so that no FIFO
 * blocks and no device is ever opened), and surviving a file cut while it
 * is mapped.
 * For the latter, a SIGBUS handler swaps the faulting page for a page of
 * zeros: the format reads zeros as "no more events", so the walk ends the
 * chunk there, as it does for a file truncated before it was opened, and the
 * counts say how much was cut.  The walk itself needs no checks of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "format/safeio.h"

static const char *file_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "not a regular file (a FIFO)";
	if (S_ISCHR(m))
		return "not a regular file (a character device)";
	if (S_ISBLK(m))
		return "not a regular file (a block device)";
	if (S_ISSOCK(m))
		return "not a regular file (a socket)";
	if (S_ISDIR(m))
		return "not a regular file (a directory)";
	if (S_ISLNK(m))
		return "a symbolic link, not followed";
	return "not a regular file";
}

/* The path is opened with O_PATH first: that opens nothing (no device driver
 * runs, no FIFO is waited on) but pins the inode, which is checked and then
 * opened for reading through /proc/self/fd, so nobody can swap the path
 * for a device between the check and the open.  Without /proc the path is
 * opened again, and the fstat after it catches a swap (a device swapped in
 * there would have been opened, non-blocking, and is closed at once). */
int fnt_open_regular(const char *path, int flags, struct stat *st, const char **why)
{
	struct stat before, after;
	int nofollow = flags & FNT_OPEN_NOFOLLOW, fd, pfd;
	char proc[32];

	pfd = open(path, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (pfd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(pfd, &before)) {
		*why = strerror(errno);
		close(pfd);
		return -1;
	}
	if (!S_ISREG(before.st_mode)) {
		*why = file_kind(before.st_mode);
		close(pfd);
		errno = S_ISDIR(before.st_mode) ? EISDIR : S_ISLNK(before.st_mode) ? ELOOP : EINVAL;
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (nofollow ? O_NOFOLLOW : 0));
	close(pfd);
	if (fd < 0) {
		*why = errno == ELOOP && nofollow ? file_kind(S_IFLNK) : strerror(errno);
		return -1;
	}
	if (fstat(fd, &after)) {
		*why = strerror(errno);
		close(fd);
		return -1;
	}
	if (!S_ISREG(after.st_mode) || after.st_dev != before.st_dev || after.st_ino != before.st_ino) {
		*why = S_ISREG(after.st_mode) ? "replaced while it was opened" : file_kind(after.st_mode);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (st)
		*st = after;
	return fd;
}

char *fnt_read_small(const char *path, int flags, size_t max, size_t *len, const char **why)
{
	int fd = fnt_open_regular(path, flags, NULL, why);
	char *buf;
	size_t n = 0;

	if (fd < 0)
		return NULL;
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		*why = strerror(ENOMEM);
		return NULL;
	}
	while (n < max) {
		ssize_t r = read(fd, buf + n, max - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

uint64_t fnt_hash_seed(void)
{
	uint64_t seed = 0;
	struct timespec ts;
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed))
		return seed;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return fnt_mix64((uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)(uintptr_t)&seed ^
			 (uint64_t)getpid() << 48);
}

/* ---- mappings that may be cut ---- */

struct map_guard {
	uintptr_t lo, hi;
	uint64_t cut;
};

/* Read by the handler.  SIGBUS from a mapping is synchronous: it runs in
 * the thread that touched the page, never inside add/remove (which touch no
 * mapping), so the table needs no lock. */
static struct map_guard *volatile guards;
static volatile size_t n_guards;
static int handler_set;
static long page_size;
static struct sigaction old_bus;

static void bus_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr, page;
	long ps = page_size;
	struct map_guard *g = guards;
	size_t n = n_guards;

	(void)uc;
	for (size_t i = 0; i < n; i++) {
		if (a < g[i].lo || a >= g[i].hi)
			continue;
		page = a & ~(uintptr_t)(ps - 1);
		if (mmap((void *)page, (size_t)ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			break;
		g[i].cut += (uint64_t)ps;
		return;      /* the load runs again and reads zeros */
	}
	/* not ours: what would have happened without this handler */
	sigaction(sig, &old_bus, NULL);
}

void fnt_mapguard_add(const void *base, size_t len)
{
	struct map_guard *ng, *old = guards;

	if (!base || !len)
		return;
	if (!handler_set) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = bus_handler;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		page_size = sysconf(_SC_PAGESIZE);
		if (sigaction(SIGBUS, &sa, &old_bus))
			return;
		handler_set = 1;
	}
	ng = malloc((n_guards + 1) * sizeof(*ng));
	if (!ng)
		return;      /* unguarded: a cut would end the reader as before */
	if (n_guards)
		memcpy(ng, old, n_guards * sizeof(*ng));
	ng[n_guards] = (struct map_guard){ (uintptr_t)base, (uintptr_t)base + len, 0 };
	guards = ng;
	n_guards = n_guards + 1;
	free(old);
}

void fnt_mapguard_remove(const void *base)
{
	struct map_guard *g = guards;
	size_t n = n_guards;

	for (size_t i = 0; i < n; i++)
		if (g[i].lo == (uintptr_t)base) {
			/* shrink first, then move the last entry into the hole: the
			 * handler sees either the old entry or none */
			n_guards = n - 1;
			g[i] = g[n - 1];
			return;
		}
}

uint64_t fnt_mapguard_cut(const void *base)
{
	for (size_t i = 0; i < n_guards; i++)
		if (guards[i].lo == (uintptr_t)base)
			return guards[i].cut;
	return 0;
}

/* pwrite (write) or pread all n bytes at off; a call that moves nothing
 * sets errno to `none` */
static int io_all(int fd, char *p, size_t n, off_t off, int write, int none)
{
	while (n) {
		ssize_t k = write ? pwrite(fd, p, n, off) : pread(fd, p, n, off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!k)
				errno = none;
			return -1;
		}
		p += k;
		n -= (size_t)k;
		off += k;
	}
	return 0;
}

int fnt_pwrite_all(int fd, const void *buf, size_t n, off_t off)
{
	return io_all(fd, (char *)(uintptr_t)buf, n, off, 1, ENOSPC);
}

int fnt_pread_all(int fd, void *buf, size_t n, off_t off)
{
	return io_all(fd, buf, n, off, 0, EIO);
}
