/*
 * test-readsafe.c - reading a trace from someone else is safe (doc/safety.md,
 * "Reading untrusted traces"):
 *   - a FIFO named *.fnt, `session` as a FIFO or as a symlink to /dev/zero:
 *     trace_open returns at once, skipping them with a warning;
 *   - a trace file cut while it is mapped: the walk keeps what is before the
 *     cut and counts the rest, no SIGBUS;
 *   - opening is linear in the number of thread and module records: the CPU
 *     time of 400,000 records against 50,000 (a ratio, not a wall-clock bound);
 *   - the module lookups (named scopes at open, each distinct address of a
 *     walk, trace_module_at) give the answers of the linear scan they
 *     replace on random overlapping module maps, and 200,000 module
 *     records with 1,000,000 distinct addresses take at most 24x the CPU
 *     time of an eighth of that (quadratic: 64x).
 * An alarm turns a hang into a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "format/reader-internal.h"
#include "format/safeio.h"
#include "tests/unit/check.h"

#define CHUNK 16384u
#define FN_ADDR 0x401000ull

static char dir[256];

static void put_file(const char *name, const void *buf, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void header(uint8_t *img, uint32_t chunk_size, uint64_t n_chunks)
{
	struct fnt_file_header *h = (void *)img;
	memcpy(h->magic, FNT_FILE_MAGIC, 8);
	h->version = FNT_FORMAT_VERSION;
	h->header_size = FNT_HEADER_SIZE;
	h->chunk_size = chunk_size;
	h->pid = 4242;
	h->clock = FNT_CLOCK_MONOTONIC;
	h->next_chunk = n_chunks;
	h->cal0_mono = 1000;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	unsigned len = fnt_varint_len(v);
	uint64_t packed = fnt_varint_pack(v, len);
	memcpy(p, &packed, len);
	return p + len;
}

/* an events chunk of thread 0: fn entered, then exit/entry pairs; returns
 * the number of events */
static uint64_t events_chunk(uint8_t *c, uint32_t seq)
{
	struct fnt_chunk_header *ch = (void *)c;
	uint8_t *p = c + FNT_CHUNK_HDR_SIZE, *end = c + CHUNK - 64;
	unsigned slot = fnt_slot(FN_ADDR);
	uint64_t n = 1;
	ch->magic = FNT_CHUNK_MAGIC;
	ch->type = FNT_CHUNK_EVENTS;
	ch->tid = 4242;
	ch->seq = seq;
	ch->base_ticks = 2000 + seq * 100000ull;
	p = put_varint(p, 1ull << 8 | FNT_K_NEW);
	p = put_varint(p, fnt_zigzag((int64_t)FN_ADDR));
	while (p + 8 < end) {
		p = put_varint(p, 1ull << 8 | (uint64_t)slot << 2 | FNT_K_EXIT);
		p = put_varint(p, 1ull << 8 | (uint64_t)slot << 2 | FNT_K_ENTRY);
		n += 2;
	}
	return n;
}

static int count_event(void *ctx, const struct trace_event *ev)
{
	if (ev->kind == TRACE_ENTRY || ev->kind == TRACE_EXIT)
		++*(uint64_t *)ctx;
	return 0;
}

static int has_warning(const struct trace *t, const char *a, const char *b)
{
	for (size_t i = 0; i < t->n_warnings; i++)
		if (strstr(t->warnings[i], a) && strstr(t->warnings[i], b))
			return 1;
	return 0;
}

static void test_cut_while_read(void)
{
	enum { N = 6 };
	size_t len = FNT_HEADER_SIZE + N * (size_t)CHUNK;
	uint8_t *img = calloc(1, len);
	uint64_t per[N], all = 0, seen = 0;
	char err[512], path[512];
	struct trace *t;

	header(img, CHUNK, N);
	for (int i = 0; i < N; i++)
		all += per[i] = events_chunk(img + FNT_HEADER_SIZE + i * (size_t)CHUNK, (uint32_t)i);
	put_file("4242-0.fnt", img, len);
	snprintf(path, sizeof(path), "%s/4242-0.fnt", dir);

	CHECK(trace_open(&t, dir, err, sizeof(err)) == 0, "open: %s", err);
	if (!t)
		return;
	trace_walk(t, 0, count_event, &seen);
	CHECK(seen == all, "whole file: %llu events, want %llu", (unsigned long long)seen, (unsigned long long)all);
	CHECK(fnt_mapguard_cut(t->procs[0].map) == 0, "nothing cut yet");
	/* cut after chunk 1 while the trace is open: the mapping's pages past
	 * the cut are gone (SIGBUS on touch without the guard) */
	CHECK(truncate(path, FNT_HEADER_SIZE + 2 * (off_t)CHUNK) == 0, "truncate: %s", strerror(errno));
	seen = 0;
	trace_walk(t, 0, count_event, &seen);
	CHECK(seen == per[0] + per[1], "after the cut: %llu events, want the %llu before it",
	      (unsigned long long)seen, (unsigned long long)(per[0] + per[1]));
	CHECK(fnt_mapguard_cut(t->procs[0].map) >= 4 * (uint64_t)CHUNK - 4096,
	      "the cut is counted: %llu bytes", (unsigned long long)fnt_mapguard_cut(t->procs[0].map));
	trace_close(t);
	unlink(path);
	free(img);
}

/* a 4 TiB sparse file with a chunk at each end: opened in the time of
 * what it holds (the holes are skipped), both chunks read */
static void test_sparse(void)
{
	uint64_t far = 1ull << 28;      /* chunk index: 4 TiB in */
	uint8_t *img = calloc(1, FNT_HEADER_SIZE + CHUNK), *c = calloc(1, CHUNK);
	uint64_t want, seen = 0;
	char err[512], path[512];
	struct trace *t = NULL;
	struct timespec a, b;
	FILE *f;

	header(img, CHUNK, far + 1);
	want = events_chunk(img + FNT_HEADER_SIZE, 0);
	want += events_chunk(c, 1);
	put_file("sparse.fnt", img, FNT_HEADER_SIZE + CHUNK);
	snprintf(path, sizeof(path), "%s/sparse.fnt", dir);
	f = fopen(path, "r+b");
	if (!f || fseeko(f, (off_t)(FNT_HEADER_SIZE + far * CHUNK), SEEK_SET) || fwrite(c, 1, CHUNK, f) != CHUNK ||
	    fflush(f)) {
		/* a file system without files that large: nothing to test here */
		if (errno == EFBIG)
			printf("skipped: %s holds no 4 TiB file\n", dir);
		else
			CHECK(0, "cannot write a sparse file: %s", strerror(errno));
		if (f)
			fclose(f);
		unlink(path);
		return;
	}
	fclose(f);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	CHECK(trace_open(&t, path, err, sizeof(err)) == 0, "open a 4 TiB sparse file: %s", err);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	printf("open: 4 TiB sparse file %.3f s of CPU\n", s);
	/* chunk by chunk, 2^28 chunk headers took minutes */
	CHECK(s < 5.0, "opening a 4 TiB sparse file took %.3f s of CPU", s);
	if (t) {
		trace_walk(t, 0, count_event, &seen);
		CHECK(seen == want, "sparse file: %llu events, want %llu", (unsigned long long)seen,
		      (unsigned long long)want);
		trace_close(t);
	}
	unlink(path);
	free(img);
	free(c);
}

static void test_fifos_and_devices(void)
{
	char path[512], err[512];
	struct trace *t = NULL;
	size_t len = FNT_HEADER_SIZE + CHUNK;
	uint8_t *img = calloc(1, len);

	header(img, CHUNK, 1);
	events_chunk(img + FNT_HEADER_SIZE, 0);
	put_file("4242-0.fnt", img, len);
	snprintf(path, sizeof(path), "%s/4243-0.fnt", dir);
	CHECK(mkfifo(path, 0600) == 0, "mkfifo: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/session", dir);
	CHECK(mkfifo(path, 0600) == 0, "mkfifo: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/4244-0.fnt", dir);
	CHECK(symlink("/dev/zero", path) == 0, "symlink: %s", strerror(errno));

	alarm(60);
	CHECK(trace_open(&t, dir, err, sizeof(err)) == 0, "open beside FIFOs: %s", err);
	if (t) {
		CHECK(t->n_procs == 1, "one process read, not %zu", t->n_procs);
		CHECK(has_warning(t, "4243-0.fnt", "FIFO"), "the FIFO .fnt is named as skipped");
		CHECK(has_warning(t, "session", "FIFO"), "the FIFO session is named as ignored");
		CHECK(has_warning(t, "4244-0.fnt", "symbolic link"), "the symlink .fnt is named as skipped");
		trace_close(t);
	}
	/* session as a symlink to /dev/zero */
	unlink(path);
	snprintf(path, sizeof(path), "%s/session", dir);
	unlink(path);
	CHECK(symlink("/dev/zero", path) == 0, "symlink: %s", strerror(errno));
	t = NULL;
	CHECK(trace_open(&t, dir, err, sizeof(err)) == 0, "open with session -> /dev/zero: %s", err);
	if (t) {
		CHECK(has_warning(t, "session", "symbolic link"), "the session link is named as ignored");
		trace_close(t);
	}
	/* the single file named is a FIFO: an error, not a hang */
	snprintf(path, sizeof(path), "%s/4243-0.fnt", dir);
	t = NULL;
	CHECK(trace_open(&t, path, err, sizeof(err)) != 0 && strstr(err, "FIFO") && strstr(err, "4243-0.fnt"),
	      "a FIFO named on the command line is an error: %s", err);
	alarm(0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/session", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/4242-0.fnt", dir);
	unlink(path);
	free(img);
}

static size_t put_module(uint8_t *c, size_t off, uint32_t type, uint32_t i)
{
	struct fnt_meta_module mm = { .ticks = 10 + i, .lo = 0x10000ull * (i + 1), .hi = 0x10000ull * (i + 2) - 1 };
	char name[32];
	int nl = snprintf(name, sizeof(name), "/lib/m%u.so", i) + 1;
	uint32_t head = (uint32_t)(sizeof(mm) + (size_t)nl) << 8 | type;
	mm.bias = mm.lo;
	memcpy(c + off, &head, 4);
	memcpy(c + off + 4, &mm, sizeof(mm));
	memcpy(c + off + 4 + sizeof(mm), name, (size_t)nl);
	return off + ((4 + sizeof(mm) + (size_t)nl + 7) & ~(size_t)7);
}

/* a file header and one 64 MiB meta chunk, empty */
static uint8_t *meta_image(void)
{
	uint8_t *img = calloc(1, FNT_HEADER_SIZE + (64u << 20));
	struct fnt_chunk_header *ch = (void *)(img + FNT_HEADER_SIZE);
	header(img, 64u << 20, 1);
	ch->magic = FNT_CHUNK_MAGIC;
	ch->type = FNT_CHUNK_META;
	return img;
}

/* a trace whose meta chunk holds n thread records and n/4 module loads,
 * then their unloads in the order of the loads (the worst order for a
 * search from the latest load) */
static double open_cpu_seconds(uint32_t n)
{
	uint8_t *img = meta_image(), *c = img + FNT_HEADER_SIZE;
	size_t off = FNT_CHUNK_HDR_SIZE;
	struct timespec a, b;
	char err[512], path[512];
	struct trace *t = NULL;

	for (uint32_t i = 0; i < n; i++) {
		struct fnt_meta_thread mt = { .thread = i, .tid = 100000 + i };
		uint32_t head = (uint32_t)sizeof(mt) << 8 | FNT_META_THREAD;
		memcpy(c + off, &head, 4);
		memcpy(c + off + 4, &mt, sizeof(mt));
		off += (4 + sizeof(mt) + 7) & ~(size_t)7;
		if (i % 4 == 0)
			off = put_module(c, off, FNT_META_MODULE_LOAD, i);
	}
	for (uint32_t i = 0; i < n; i += 4)
		off = put_module(c, off, FNT_META_MODULE_UNLOAD, i);
	put_file("many.fnt", img, FNT_HEADER_SIZE + off);
	free(img);
	snprintf(path, sizeof(path), "%s/many.fnt", dir);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	CHECK(trace_open(&t, path, err, sizeof(err)) == 0, "open %u records: %s", n, err);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	if (t) {
		CHECK(t->procs[0].n_threads == n, "%zu threads, want %u", t->procs[0].n_threads, n);
		CHECK(t->n_files == (n + 3) / 4, "%zu module files, want %u", t->n_files, (n + 3) / 4);
		CHECK(t->procs[0].n_threads == n && t->procs[0].threads[n - 1].tid == 100000 + n - 1,
		      "the last thread keeps its tid");
		size_t unloaded = 0;
		for (size_t k = 0; k < t->procs[0].n_modules; k++)
			unloaded += t->procs[0].modules[k].unload_ticks == t->procs[0].modules[k].load_ticks;
		CHECK(unloaded == (n + 3) / 4, "%zu modules unloaded at their own time, want %u", unloaded, (n + 3) / 4);
		trace_close(t);
	}
	unlink(path);
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
}

/* a trace with n named-scope records in one module: the CPU time of
 * opening it and looking up every scope's name */
static double scope_cpu_seconds(uint32_t n)
{
	uint8_t *img = meta_image(), *c = img + FNT_HEADER_SIZE;
	size_t off = FNT_CHUNK_HDR_SIZE;
	struct timespec a, b;
	char err[512], path[512];
	struct trace *t = NULL;
	size_t found = 0;

	off = put_module(c, off, FNT_META_MODULE_LOAD, 0);      /* 0x10000-0x1ffff, bias 0x10000 */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t rec[2] = { 20, 0x10000 + i % 0x10000 + (uint64_t)(i / 0x10000) * 0x20000 };
		char name[24];
		int nl = snprintf(name, sizeof(name), "scope%u", i) + 1;
		uint32_t head = (uint32_t)(16 + nl) << 8 | FNT_META_SCOPE;
		memcpy(c + off, &head, 4);
		memcpy(c + off + 4, rec, 16);
		memcpy(c + off + 20, name, (size_t)nl);
		off += (4 + 16 + (size_t)nl + 7) & ~(size_t)7;
	}
	put_file("scopes.fnt", img, FNT_HEADER_SIZE + off);
	free(img);
	snprintf(path, sizeof(path), "%s/scopes.fnt", dir);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	CHECK(trace_open(&t, path, err, sizeof(err)) == 0, "open %u scopes: %s", n, err);
	if (t) {
		for (size_t k = 0; k < t->n_scopes; k++) {
			const char *nm = trace_scope_name(t, t->scopes[k].file, t->scopes[k].vaddr);
			found += nm && !strcmp(nm, t->scopes[k].name);
		}
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	if (t) {
		/* the first 0x10000 lie in the module, the rest outside every module */
		CHECK(found == n, "%zu of %u scope names found", found, n);
		CHECK(t->scopes[0].file == 0 && t->scopes[0].vaddr == 0, "a scope in the module is resolved to it");
		trace_close(t);
	}
	unlink(path);
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
}

static void test_open_is_linear(void)
{
	double small = open_cpu_seconds(50000), big = open_cpu_seconds(400000);
	/* 8 times the records: linear is ~8x (0.01 s against 0.12 s here, 1 s
	 * under ASan), the old quadratic open ~100x (2.8 s against 268 s): a
	 * bound far from both, in CPU time, which a loaded machine barely moves */
	printf("open: 50,000 thread records %.3f s, 400,000 %.3f s of CPU\n", small, big);
	CHECK(big < 16 * small + 2.0, "opening 400,000 records took %.3f s of CPU against %.3f s for 50,000",
	      big, small);
	small = scope_cpu_seconds(25000);
	big = scope_cpu_seconds(200000);
	printf("scopes: 25,000 named-scope records %.3f s, 200,000 %.3f s of CPU (open and every name)\n", small,
	       big);
	CHECK(big < 16 * small + 2.0, "200,000 scope records took %.3f s of CPU against %.3f s for 25,000", big,
	      small);
}

/* ---- module lookups ---- */

static size_t put_module_rec(uint8_t *c, size_t off, uint32_t type, const struct fnt_meta_module *mm,
			     const char *name)
{
	size_t nl = strlen(name) + 1;
	uint32_t head = (uint32_t)(sizeof(*mm) + nl) << 8 | type;
	memcpy(c + off, &head, 4);
	memcpy(c + off + 4, mm, sizeof(*mm));
	memcpy(c + off + 4 + sizeof(*mm), name, nl);
	return off + ((4 + sizeof(*mm) + nl + 7) & ~(size_t)7);
}

static size_t put_scope_rec(uint8_t *c, size_t off, uint64_t ticks, uint64_t addr, const char *name)
{
	uint64_t rec[2] = { ticks, addr };
	size_t nl = strlen(name) + 1;
	uint32_t head = (uint32_t)(16 + nl) << 8 | FNT_META_SCOPE;
	memcpy(c + off, &head, 4);
	memcpy(c + off + 4, rec, 16);
	memcpy(c + off + 20, name, nl);
	return off + ((4 + 16 + nl + 7) & ~(size_t)7);
}

/* The linear scans the index replaced, as they were: the reference. */
static const struct trace_module *scan_module_at(const struct trace_process *p, uint64_t addr, uint64_t ticks)
{
	const struct trace_module *later = NULL, *any = NULL;
	for (size_t i = 0; i < p->n_modules; i++) {
		const struct trace_module *m = &p->modules[i];
		if (addr < m->lo || addr >= m->hi)
			continue;
		if ((m->at_start || m->load_ticks <= ticks) && ticks < m->unload_ticks)
			return m;
		if (m->load_ticks > ticks && (!later || m->load_ticks < later->load_ticks))
			later = m;
		any = m;
	}
	return later ? later : any;
}

static const struct trace_module *scan_module_at_ns(const struct trace_process *p, uint64_t addr, uint64_t ns)
{
	const struct trace_module *any = NULL;
	for (size_t i = 0; i < p->n_modules; i++) {
		const struct trace_module *m = &p->modules[i];
		if (addr < m->lo || addr >= m->hi)
			continue;
		if (m->load_ns <= ns && ns < m->unload_ns)
			return m;
		any = m;
	}
	return any && any->unload_ns == UINT64_MAX ? any : NULL;
}

static uint64_t rnd_state = 0x2545F4914F6CDD1Dull;

static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

/* Random maps of up to 300 modules in a small address space, so that they
 * overlap in every way (nested, equal, touching, reloaded at the same place
 * by another file), with loads before and after the start-up scan, unloads
 * of some (one before its own load), equal load times, scopes among them:
 * every lookup at every interesting address and time is the scan's answer. */
static void test_lookup_matches_scan(void)
{
	enum { CH = 1u << 20 };
	size_t len = FNT_HEADER_SIZE + CH;
	uint8_t *img = malloc(len);
	size_t bad = 0, bad_ns = 0, bad_scope = 0, queries = 0;
	char err[512];

	for (int round = 0; round < 200; round++) {
		uint8_t *c = img + FNT_HEADER_SIZE;
		size_t off = FNT_CHUNK_HDR_SIZE;
		uint32_t n = 1 + (uint32_t)rnd(round < 100 ? 12 : 300);
		struct fnt_meta_module *mm = calloc(n, sizeof(*mm));
		uint64_t *scope_addr = calloc(n, sizeof(*scope_addr)), *scope_ticks = calloc(n, sizeof(*scope_ticks));
		struct trace *t = NULL;

		memset(img, 0, len);
		header(img, CH, 1);
		((struct fnt_file_header *)img)->cal1_ticks = 50;
		((struct fnt_chunk_header *)c)->magic = FNT_CHUNK_MAGIC;
		((struct fnt_chunk_header *)c)->type = FNT_CHUNK_META;
		for (uint32_t i = 0; i < n; i++) {
			char name[32];
			mm[i].lo = 0x1000 + 0x100 * rnd(40);
			mm[i].hi = mm[i].lo + 0x100 * (1 + rnd(rnd(2) ? 3 : 30));
			mm[i].bias = mm[i].lo - 0x100 * rnd(4);
			mm[i].ticks = rnd(4) ? rnd(200) : rnd(60);
			snprintf(name, sizeof(name), "/lib/r%u.so", (unsigned)rnd(n / 2 + 1));
			off = put_module_rec(c, off, FNT_META_MODULE_LOAD, &mm[i], name);
			if (rnd(3) == 0) {      /* unloaded (at times before its load too) */
				struct fnt_meta_module um = mm[i];
				um.ticks = rnd(5) ? mm[i].ticks + rnd(100) : rnd(200);
				off = put_module_rec(c, off, FNT_META_MODULE_UNLOAD, &um, name);
			}
			scope_addr[i] = 0x1000 + rnd(0x100 * 45);
			scope_ticks[i] = rnd(300);
			snprintf(name, sizeof(name), "scope%u", i);
			off = put_scope_rec(c, off, scope_ticks[i], scope_addr[i], name);
		}
		if (trace_open_buffer(&t, img, len, err, sizeof(err))) {
			CHECK(0, "open a random module map: %s", err);
			goto next;
		}
		const struct trace_process *p = &t->procs[0];
		for (uint64_t a = 0xf00; a < 0x1000 + 0x100 * 75; a += 0x80)
			for (uint64_t tk = 0; tk < 320; tk += 1 + rnd(7)) {
				queries++;
				bad += module_at(p, a, tk) != scan_module_at(p, a, tk);
				uint64_t ns = tk + (rnd(2) ? 0 : rnd(1000));
				bad_ns += trace_module_at(p, a, ns) != scan_module_at_ns(p, a, ns);
			}
		for (size_t k = 0; k < n; k++) {
			const struct trace_module *m = scan_module_at(p, scope_addr[k], scope_ticks[k]);
			const struct trace_scope *sc = &t->scopes[k];
			bad_scope += m ? sc->file != m->file || sc->vaddr != scope_addr[k] - m->bias
				       : sc->file != TRACE_NO_FILE || sc->vaddr != scope_addr[k];
		}
		trace_close(t);
	next:
		free(mm);
		free(scope_addr);
		free(scope_ticks);
	}
	CHECK(bad == 0, "module_at differs from the scan in %zu of %zu lookups", bad, queries);
	CHECK(bad_ns == 0, "trace_module_at differs from the scan in %zu of %zu lookups", bad_ns, queries);
	CHECK(bad_scope == 0, "%zu named scopes resolved otherwise than by the scan", bad_scope);
	free(img);
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct hostile_walk {
	const struct trace_process *p;
	uint64_t live0;                 /* index of the first live module */
	uint64_t events, wrong, wrong_ns;
	double deadline;                /* CPU time: give up past it (the walk would be quadratic) */
	int late;
};

#define HOSTILE_BASE 0x10000000ull
#define HOSTILE_PER_MODULE 10

static int hostile_event(void *ctx, const struct trace_event *ev)
{
	struct hostile_walk *w = ctx;
	if (ev->kind != TRACE_ENTRY)
		return 0;
	/* the module the address lies in: the live one, not the one unloaded
	 * before, at the same place */
	uint64_t k = (ev->addr - HOSTILE_BASE) / 0x1000;
	const struct trace_module *want = &w->p->modules[w->live0 + k];
	const struct trace_func *f = &w->p->trace->funcs[ev->func];
	w->wrong += f->file != want->file || f->vaddr != ev->addr - want->bias;
	w->wrong_ns += trace_module_at(w->p, ev->addr, ev->ns) != want;
	if (++w->events % 65536 == 0 && cpu_now() > w->deadline) {
		w->late = 1;
		return 1;
	}
	return 0;
}

/* A hostile trace: m address ranges, each mapped first by a module
 * unloaded at once and then by the module that stays (2m module records),
 * m/2 named scopes, and a thread entering 10 * m distinct addresses, 10 in
 * each range.  Returns the CPU time of opening it, walking it and asking
 * trace_module_at about each address; gives up past `budget` seconds. */
static double hostile_cpu_seconds(uint32_t m, double budget)
{
	const uint32_t chunk = 32u << 20;
	uint64_t n_addr = (uint64_t)m * HOSTILE_PER_MODULE;
	size_t len = FNT_HEADER_SIZE + 2 * (size_t)chunk;
	uint8_t *img = calloc(1, len), *c = img + FNT_HEADER_SIZE, *e = c + chunk, *p;
	size_t off = FNT_CHUNK_HDR_SIZE;
	struct hostile_walk w = { 0 };
	char err[512], path[512], name[32];
	struct trace *t = NULL;
	double a, b;

	header(img, chunk, 2);
	((struct fnt_file_header *)img)->cal1_ticks = 10;
	((struct fnt_chunk_header *)c)->magic = FNT_CHUNK_MAGIC;
	((struct fnt_chunk_header *)c)->type = FNT_CHUNK_META;
	for (int live = 0; live < 2; live++)
		for (uint32_t i = 0; i < m; i++) {
			struct fnt_meta_module mm = { .ticks = 1, .lo = HOSTILE_BASE + 0x1000ull * i };
			mm.hi = mm.lo + 0x1000;
			mm.bias = mm.lo - 0x400000;
			snprintf(name, sizeof(name), live ? "/lib/live%u.so" : "/lib/dead%u.so", i);
			off = put_module_rec(c, off, FNT_META_MODULE_LOAD, &mm, name);
			if (!live) {
				mm.ticks = 2;
				off = put_module_rec(c, off, FNT_META_MODULE_UNLOAD, &mm, name);
			}
		}
	for (uint32_t i = 0; i < m / 2; i++) {
		snprintf(name, sizeof(name), "scope%u", i);
		off = put_scope_rec(c, off, 500, HOSTILE_BASE + 0x1000ull * (2 * i) + 0x800, name);
	}
	CHECK(off <= chunk, "the meta records fit their chunk");
	((struct fnt_chunk_header *)e)->magic = FNT_CHUNK_MAGIC;
	((struct fnt_chunk_header *)e)->type = FNT_CHUNK_EVENTS;
	((struct fnt_chunk_header *)e)->tid = 4242;
	((struct fnt_chunk_header *)e)->base_ticks = 1000;
	p = e + FNT_CHUNK_HDR_SIZE;
	uint64_t prev = 0;
	for (uint64_t j = 0; j < n_addr; j++) {
		uint64_t addr = HOSTILE_BASE + 0x1000 * (j / HOSTILE_PER_MODULE) + 0x10 * (j % HOSTILE_PER_MODULE + 1);
		p = put_varint(p, 1ull << 8 | FNT_K_NEW);
		p = put_varint(p, fnt_zigzag((int64_t)(addr - prev)));
		p = put_varint(p, 1ull << 8 | (uint64_t)fnt_slot(addr) << 2 | FNT_K_EXIT);
		prev = addr;
	}
	CHECK(p < e + chunk, "the events fit their chunk");
	put_file("hostile.fnt", img, (size_t)(p - img) + 8);
	free(img);
	snprintf(path, sizeof(path), "%s/hostile.fnt", dir);

	a = cpu_now();
	w.deadline = a + budget;
	CHECK(trace_open(&t, path, err, sizeof(err)) == 0, "open the hostile trace: %s", err);
	if (t) {
		w.p = &t->procs[0];
		w.live0 = m;
		if (cpu_now() > w.deadline)
			w.late = 1;
		else
			trace_walk(t, 0, hostile_event, &w);
	}
	b = cpu_now();
	if (t) {
		if (!w.late) {
			size_t scopes_ok = 0;
			CHECK(w.events == n_addr, "%llu distinct addresses entered, want %llu",
			      (unsigned long long)w.events, (unsigned long long)n_addr);
			CHECK(t->n_funcs == n_addr, "%zu functions, want %llu", t->n_funcs, (unsigned long long)n_addr);
			for (uint32_t i = 0; i < m / 2; i++)
				scopes_ok += t->scopes[i].file == w.p->modules[m + 2 * i].file &&
					     t->scopes[i].vaddr == 0x400800;
			CHECK(scopes_ok == m / 2, "%zu of %u named scopes resolved to their live module", scopes_ok,
			      m / 2);
		}
		CHECK(w.wrong == 0, "%llu addresses resolved to the wrong module", (unsigned long long)w.wrong);
		CHECK(w.wrong_ns == 0, "trace_module_at gave the wrong module for %llu addresses",
		      (unsigned long long)w.wrong_ns);
		trace_close(t);
	}
	unlink(path);
	return w.late ? -1 : b - a;
}

static void test_lookups_scale(void)
{
	double small = hostile_cpu_seconds(100000 / 8, 600), budget = 24 * small + 2.0;
	double big = hostile_cpu_seconds(100000, budget);
	/* 8 times the modules and the addresses: n log^2 n is ~13x (0.07 s
	 * against 0.9 s here), the old scans 64x (2.2 s, and the big run gave
	 * up after 56 s): a bound far from both, in CPU time, and the big run
	 * gives up there */
	printf("lookups: 25,000 module records and 125,000 addresses %.3f s, 200,000 and 1,000,000 %.3f s of CPU\n",
	       small, big);
	CHECK(big >= 0, "200,000 module records and 1,000,000 addresses took more than %.3f s of CPU "
	      "against %.3f s for an eighth", budget, small);
}

struct seen_addrs {
	uint64_t addr[16];
	int kind[16];
	int n;
};

static int note_addr(void *ctx, const struct trace_event *ev)
{
	struct seen_addrs *a = ctx;
	if ((ev->kind == TRACE_ENTRY || ev->kind == TRACE_EXIT) && a->n < 16) {
		a->addr[a->n] = ev->addr;
		a->kind[a->n++] = ev->kind;
	}
	return 0;
}

/* Format version 2's two-way sets: a NEW event with payload bit 1 puts its
 * address into the other slot of its set, so two functions of one home
 * slot are both cached; in a version 1 file that bit is corruption. */
static void test_two_way_sets(void)
{
	size_t len = FNT_HEADER_SIZE + CHUNK;
	uint64_t a = FN_ADDR, b = a + 16;
	char err[512], path[512];
	while (fnt_slot(b) != fnt_slot(a))
		b += 16;
	unsigned h = fnt_slot(a);
	for (uint32_t version = 1; version <= 2; version++) {
		uint8_t *img = calloc(1, len), *p;
		struct trace *t;
		struct seen_addrs seen = { .n = 0 };
		header(img, CHUNK, 1);
		((struct fnt_file_header *)img)->version = version;
		struct fnt_chunk_header *ch = (void *)(img + FNT_HEADER_SIZE);
		ch->magic = FNT_CHUNK_MAGIC;
		ch->type = FNT_CHUNK_EVENTS;
		ch->tid = 4242;
		ch->base_ticks = 2000;
		p = img + FNT_HEADER_SIZE + FNT_CHUNK_HDR_SIZE;
		p = put_varint(p, 1ull << 8 | 0u << 2 | FNT_K_NEW);          /* a entered: its home slot */
		p = put_varint(p, fnt_zigzag((int64_t)a));
		p = put_varint(p, 1ull << 8 | 2u << 2 | FNT_K_NEW);          /* b entered: the other slot */
		p = put_varint(p, fnt_zigzag((int64_t)(b - a)));
		p = put_varint(p, 1ull << 8 | (uint64_t)(h ^ 1) << 2 | FNT_K_EXIT);   /* b returns */
		p = put_varint(p, 1ull << 8 | (uint64_t)h << 2 | FNT_K_EXIT);         /* a returns */
		p = put_varint(p, 1ull << 8 | 3u << 2 | FNT_K_NEW);          /* b again, as a NEW exit */
		p = put_varint(p, fnt_zigzag(0));
		put_file("4242-0.fnt", img, len);
		CHECK(trace_open(&t, dir, err, sizeof(err)) == 0, "version %u: open: %s", version, err);
		if (!t) {
			free(img);
			continue;
		}
		trace_walk(t, 0, note_addr, &seen);
		if (version == 2) {
			CHECK(seen.n == 5 && seen.addr[0] == a && seen.addr[1] == b && seen.addr[2] == b &&
			      seen.addr[3] == a && seen.addr[4] == b && seen.kind[1] == TRACE_ENTRY &&
			      seen.kind[2] == TRACE_EXIT && seen.kind[4] == TRACE_EXIT,
			      "version 2: %d events, the second at %#llx", seen.n, (unsigned long long)seen.addr[1]);
			CHECK(t->procs[0].damaged_bytes == 0, "version 2: %llu bytes damaged",
			      (unsigned long long)t->procs[0].damaged_bytes);
		} else {
			CHECK(seen.n == 1 && seen.addr[0] == a && t->procs[0].damaged_bytes > 0,
			      "version 1: %d events, %llu bytes damaged (payload bit 1 is corruption)", seen.n,
			      (unsigned long long)t->procs[0].damaged_bytes);
		}
		trace_close(t);
		snprintf(path, sizeof(path), "%s/4242-0.fnt", dir);
		unlink(path);
		free(img);
	}
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/fnt-readsafe.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_fifos_and_devices();
	test_cut_while_read();
	test_two_way_sets();
	test_sparse();
	test_open_is_linear();
	test_lookup_matches_scan();
	test_lookups_scale();
	rmdir(dir);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
