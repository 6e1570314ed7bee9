/*
 * pages.c - what the trace buffer's memory costs a traced thread, per event,
 * for each way of getting fresh buffer space (issue 15's "measure the
 * alternatives first").  A writer stores 2-byte events (the default mode's
 * size) sequentially into 256 KiB chunks; when a chunk is full it takes the
 * next one by the strategy under test:
 *
 *   anon-reuse   one private chunk, reused: the store cost alone (the floor)
 *   file-new     today's runtime: a new chunk of the MAP_SHARED trace file,
 *                fallocate + mmap + MADV_POPULATE_WRITE (the kernel
 *                allocates, zeroes and inserts every page in the page cache)
 *   file-fault   the same without MADV_POPULATE_WRITE (a fault per page)
 *   ring         a ring of R chunks in a memfd mapped MAP_SHARED by the
 *                writer and by a drain process (forked: it stands for
 *                `fntrace record`), which copies each full chunk into the
 *                trace file with pwrite and hands it back; the writer reuses
 *                the ring's pages, so it takes no page fault after the first
 *                round.  When the ring is full the writer spins on the drain.
 *   ring-huge    the same ring with MADV_HUGEPAGE on the memfd (shmem THP,
 *                when /sys/kernel/mm/transparent_hugepage/shmem_enabled
 *                allows it)
 *   ring-zero    the ring, its drain zeroing each chunk after copying it out
 *                (memset), as `fntrace record` does: a crashed writer's last
 *                chunk must end in zeros, not in an older chunk's events
 *   ring-ntzero  the same, zeroing with non-temporal stores, which leave the
 *                lines in memory rather than modified in the drain's cache
 *
 * Prints, per strategy: ns per event of the writer's wall time, and CPU ns
 * per event of the writer and of the drain (user + sys).  Usage:
 *   pages [MB per run (default 256)] [runs (default 3)] [dir for the files (default .)]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __x86_64__
#include <emmintrin.h>
#endif

#define CHUNK (256u << 10)
#ifndef RING
#define RING 16u                        /* chunks in the ring: 4 MiB */
#endif

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

struct ctl {                             /* at the start of the ring's memfd, one page */
	volatile uint64_t filled;        /* chunks the writer has filled */
	volatile uint64_t drained;       /* chunks the drain has written */
	volatile int done;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double cpu_ns(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

/* the hot loop: 2-byte stores into a chunk, as the default mode's events */
static void fill(uint8_t *c, uint64_t seq)
{
	uint16_t *p = (uint16_t *)c, *e = (uint16_t *)(c + CHUNK);
	uint16_t v = (uint16_t)seq;
	while (p < e)
		*p++ = v++;
	__asm__ volatile("" ::: "memory");
}

static int open_file(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/pages-%s.tmp", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	unlink(path);
	return fd;
}

static void run_file(const char *dir, uint64_t chunks, int populate)
{
	int fd = open_file(dir, populate ? "file-new" : "file-fault");
	for (uint64_t i = 0; i < chunks; i++) {
		off_t off = (off_t)i * CHUNK;
		if (fallocate(fd, 0, off, CHUNK)) {
			perror("fallocate");
			exit(1);
		}
		uint8_t *m = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
		if (m == MAP_FAILED) {
			perror("mmap");
			exit(1);
		}
		if (populate)
			madvise(m, CHUNK, MADV_POPULATE_WRITE);
		fill(m, i);
		munmap(m, CHUNK);
	}
	close(fd);
}

static void run_anon(uint64_t chunks)
{
	uint8_t *m = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (uint64_t i = 0; i < chunks; i++)
		fill(m, i);
	munmap(m, CHUNK);
}

static void zero_nt(uint8_t *p, size_t n)
{
#ifdef __x86_64__
	__m128i z = _mm_setzero_si128();
	for (size_t i = 0; i < n; i += 64) {
		_mm_stream_si128((__m128i *)(p + i), z);
		_mm_stream_si128((__m128i *)(p + i + 16), z);
		_mm_stream_si128((__m128i *)(p + i + 32), z);
		_mm_stream_si128((__m128i *)(p + i + 48), z);
	}
	_mm_sfence();
#else
	memset(p, 0, n);
#endif
}

/* returns the drain's CPU ns; zero: 0 none, 1 memset, 2 non-temporal */
static double run_ring(const char *dir, uint64_t chunks, int huge, int zero)
{
	size_t len = 4096 + (size_t)RING * CHUNK;
	int mfd = memfd_create("fntrace-ring", 0), out = open_file(dir, huge ? "ring-huge" : "ring");
	if (mfd < 0 || ftruncate(mfd, (off_t)len)) {
		perror("memfd");
		exit(1);
	}
	uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	if (huge)
		madvise(m, len, MADV_HUGEPAGE);
	madvise(m, len, MADV_POPULATE_WRITE);
	struct ctl *c = (struct ctl *)m;
	uint8_t *ring = m + 4096;
	int pfd[2];
	if (pipe(pfd))
		exit(1);
	pid_t pid = fork();
	if (pid == 0) {                  /* the drain: copy full chunks out, in order */
		uint64_t d = 0;
		for (;;) {
			uint64_t f = __atomic_load_n(&c->filled, __ATOMIC_ACQUIRE);
			if (d == f) {
				if (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) && d == __atomic_load_n(&c->filled, __ATOMIC_ACQUIRE))
					break;
				usleep(50);
				continue;
			}
			while (d < f) {
				if (pwrite(out, ring + (d % RING) * CHUNK, CHUNK, (off_t)(d * CHUNK)) != CHUNK) {
					perror("pwrite");
					_exit(1);
				}
				if (zero == 1)
					memset(ring + (d % RING) * CHUNK, 0, CHUNK);
				else if (zero == 2)
					zero_nt(ring + (d % RING) * CHUNK, CHUNK);
				d++;
				__atomic_store_n(&c->drained, d, __ATOMIC_RELEASE);
			}
		}
		double cpu = cpu_ns(RUSAGE_SELF);
		if (write(pfd[1], &cpu, sizeof(cpu)) != sizeof(cpu))
			_exit(1);
		_exit(0);
	}
	for (uint64_t i = 0; i < chunks; i++) {
		while (i - __atomic_load_n(&c->drained, __ATOMIC_ACQUIRE) >= RING)
			__builtin_ia32_pause();          /* the ring is full: wait for the drain */
		fill(ring + (i % RING) * CHUNK, i);
		__atomic_store_n(&c->filled, i + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	double dcpu = 0;
	if (read(pfd[0], &dcpu, sizeof(dcpu)) != sizeof(dcpu))
		dcpu = -1;
	waitpid(pid, NULL, 0);
	close(pfd[0]);
	close(pfd[1]);
	munmap(m, len);
	close(mfd);
	close(out);
	return dcpu;
}

/* name is in the comma-separated list (or there is none) */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
	return !list;
}

int main(int argc, char **argv)
{
	uint64_t mb = argc > 1 ? strtoull(argv[1], NULL, 0) : 256;
	int runs = argc > 2 ? atoi(argv[2]) : 3;
	const char *dir = argc > 3 ? argv[3] : ".";
	uint64_t chunks = mb * (1u << 20) / CHUNK, events = chunks * CHUNK / 2;
	static const char *names[] = { "anon-reuse", "file-new", "file-fault", "ring", "ring-huge", "ring-zero",
				       "ring-ntzero" };
	const char *only = getenv("PAGES_ONLY");        /* a comma-separated list of strategies */

	printf("# %llu MB per run, %llu events of 2 bytes, chunks of %u KiB, ring of %u chunks\n",
	       (unsigned long long)mb, (unsigned long long)events, CHUNK >> 10, RING);
	printf("%-11s %5s %12s %14s %13s\n", "strategy", "run", "wall ns/ev", "writer cpu/ev", "drain cpu/ev");
	for (int s = 0; s < 7; s++)
		for (int r = 0; r < runs && listed(only, names[s]); r++) {
			double c0 = cpu_ns(RUSAGE_SELF), dcpu = 0;
			uint64_t t0 = now_ns();
			switch (s) {
			case 0: run_anon(chunks); break;
			case 1: run_file(dir, chunks, 1); break;
			case 2: run_file(dir, chunks, 0); break;
			case 3: dcpu = run_ring(dir, chunks, 0, 0); break;
			case 4: dcpu = run_ring(dir, chunks, 1, 0); break;
			case 5: dcpu = run_ring(dir, chunks, 0, 1); break;
			case 6: dcpu = run_ring(dir, chunks, 0, 2); break;
			}
			uint64_t t1 = now_ns();
			double c1 = cpu_ns(RUSAGE_SELF);
			printf("%-11s %5d %12.3f %14.3f %13.3f\n", names[s], r + 1, (double)(t1 - t0) / events,
			       (c1 - c0) / events, dcpu / events);
			fflush(stdout);
		}
	return 0;
}
