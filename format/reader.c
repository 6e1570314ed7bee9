/*
 * reader.c - the trace reader: open, validate, replay the module map, and
 * decode events thread by thread or merged in time order.
 *
 * Every length and offset read from a file is checked against the file
 * before use: a corrupt or truncated trace yields warnings and counts of
 * skipped bytes, never a crash.  Chunks decode independently (each starts a
 * fresh timestamp base and address cache), so damage in one chunk loses at
 * most the rest of that chunk.
 *
 * Decoding is streaming: memory is the file mappings (paged in and out by
 * the kernel) plus a cursor per thread, whatever the number of events.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format/reader.h"
#include "format/safeio.h"

#define MAX_THREADS_PER_PROC (1u << 20)
/* no real stack holds more frames (each takes at least 16 bytes): a chunk
 * header giving a larger call depth is corrupt */
#define MAX_START_DEPTH (1 << 28)
#define MAX_SESSION_SIZE (1u << 20)
#define likely_(x) __builtin_expect(!!(x), 1)

static void *xrealloc_(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fprintf(stderr, "fntrace: out of memory\n");
		exit(1);
	}
	return q;
}

/* Room for element n of an array of n elements that only ever grows
 * through here: capacities are powers of two, so appending n records costs
 * O(n) copies, whatever the allocator (ASan's realloc always copies). */
static void *grow_(void *p, size_t n, size_t size)
{
	if (n & (n - 1))        /* neither 0 nor a power of two: there is room */
		return p;
	return xrealloc_(p, (n ? 2 * n : 1) * size);
}

static char *xstrdup_(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		fprintf(stderr, "fntrace: out of memory\n");
		exit(1);
	}
	return d;
}

static void warn(struct trace *t, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->warnings = grow_(t->warnings, t->n_warnings, sizeof(*t->warnings));
	t->warnings[t->n_warnings++] = xstrdup_(buf);
}

/* ---- functions ---- */

static uint64_t func_key_hash(uint32_t file, uint64_t vaddr)
{
	uint64_t h = (vaddr ^ ((uint64_t)file << 47)) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

static uint32_t func_id(struct trace *t, uint32_t file, uint64_t vaddr)
{
	size_t mask, i;
	if (t->n_funcs * 2 >= t->func_hash_size) {
		size_t nsize = t->func_hash_size ? t->func_hash_size * 2 : 1024;
		uint32_t *nh = calloc(nsize, sizeof(*nh));
		if (!nh) {
			fprintf(stderr, "fntrace: out of memory\n");
			exit(1);
		}
		for (size_t k = 0; k < t->n_funcs; k++) {
			size_t j = func_key_hash(t->funcs[k].file, t->funcs[k].vaddr) & (nsize - 1);
			while (nh[j])
				j = (j + 1) & (nsize - 1);
			nh[j] = (uint32_t)k + 1;
		}
		free(t->func_hash);
		t->func_hash = nh;
		t->func_hash_size = nsize;
	}
	mask = t->func_hash_size - 1;
	i = func_key_hash(file, vaddr) & mask;
	while (t->func_hash[i]) {
		struct trace_func *f = &t->funcs[t->func_hash[i] - 1];
		if (f->file == file && f->vaddr == vaddr)
			return t->func_hash[i] - 1;
		i = (i + 1) & mask;
	}
	if (t->n_funcs == t->cap_funcs) {
		t->cap_funcs = t->cap_funcs ? t->cap_funcs * 2 : 256;
		t->funcs = xrealloc_(t->funcs, t->cap_funcs * sizeof(*t->funcs));
	}
	t->funcs[t->n_funcs] = (struct trace_func){ .file = file, .vaddr = vaddr };
	t->func_hash[i] = (uint32_t)t->n_funcs + 1;
	return (uint32_t)t->n_funcs++;
}

/* The module of process p that held addr at `ticks`.  A function that runs
 * before its module's load record (a constructor inside dlopen) is matched
 * with the next load that covers it. */
static const struct trace_module *module_at(const struct trace_process *p, uint64_t addr, uint64_t ticks)
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

static uint32_t resolve(struct trace_process *p, uint64_t addr, uint64_t ticks)
{
	const struct trace_module *m = module_at(p, addr, ticks);
	if (!m)
		return func_id(p->trace, TRACE_NO_FILE, addr);
	return func_id(p->trace, m->file, addr - m->bias);
}

/* ---- opening ---- */

/* Module files and threads are found through hash tables, not by a scan:
 * a trace may hold hundreds of thousands of module or thread records, and
 * opening it must stay O(n). */
static uint64_t file_key_hash(const char *path, const uint8_t *bid, uint8_t bid_len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		h = (h ^ *c) * 0x100000001b3ull;
	for (uint8_t i = 0; i < bid_len; i++)
		h = (h ^ bid[i]) * 0x100000001b3ull;
	return h ^ (h >> 31);
}

static void file_hash_grow(struct trace *t)
{
	size_t nsize = t->file_hash_size ? t->file_hash_size * 2 : 256;
	uint32_t *nh = calloc(nsize, sizeof(*nh));
	if (!nh) {
		fprintf(stderr, "fntrace: out of memory\n");
		exit(1);
	}
	for (size_t k = 0; k < t->n_files; k++) {
		const struct trace_file_ref *f = &t->files[k];
		size_t j = file_key_hash(f->path, f->build_id, f->build_id_len) & (nsize - 1);
		while (nh[j])
			j = (j + 1) & (nsize - 1);
		nh[j] = (uint32_t)k + 1;
	}
	free(t->file_hash);
	t->file_hash = nh;
	t->file_hash_size = nsize;
}

static uint32_t file_ref(struct trace *t, const char *path, const uint8_t *bid, uint8_t bid_len)
{
	size_t i, mask;
	if (t->n_files * 2 >= t->file_hash_size)
		file_hash_grow(t);
	mask = t->file_hash_size - 1;
	for (i = file_key_hash(path, bid, bid_len) & mask; t->file_hash[i]; i = (i + 1) & mask) {
		struct trace_file_ref *f = &t->files[t->file_hash[i] - 1];
		if (f->build_id_len == bid_len && !memcmp(f->build_id, bid, bid_len) && !strcmp(f->path, path))
			return t->file_hash[i] - 1;
	}
	t->file_hash[i] = (uint32_t)t->n_files + 1;
	t->files = grow_(t->files, t->n_files, sizeof(*t->files));
	struct trace_file_ref *f = &t->files[t->n_files];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup_(path);
	memcpy(f->build_id, bid, bid_len);
	f->build_id_len = bid_len;
	f->sym = -1;
	return (uint32_t)t->n_files++;
}

static struct trace_thread *thread_get(struct trace_process *p, uint32_t serial, uint32_t tid)
{
	/* serial < MAX_THREADS_PER_PROC: the index is at most 4 MiB */
	if (serial >= p->n_thread_index) {
		size_t n = p->n_thread_index ? p->n_thread_index : 64;
		while (n <= serial)
			n *= 2;
		p->thread_index = xrealloc_(p->thread_index, n * sizeof(*p->thread_index));
		memset(p->thread_index + p->n_thread_index, 0, (n - p->n_thread_index) * sizeof(*p->thread_index));
		p->n_thread_index = n;
	}
	if (p->thread_index[serial])
		return &p->threads[p->thread_index[serial] - 1];
	if (p->n_threads == p->cap_threads) {
		p->cap_threads = p->cap_threads ? 2 * p->cap_threads : 8;
		p->threads = xrealloc_(p->threads, p->cap_threads * sizeof(*p->threads));
	}
	p->thread_index[serial] = (uint32_t)p->n_threads + 1;
	struct trace_thread *th = &p->threads[p->n_threads++];
	memset(th, 0, sizeof(*th));
	th->proc = p;
	th->serial = serial;
	th->tid = tid;
	th->selected = 1;
	th->start_depth = INT32_MIN;
	return th;
}

static const struct fnt_chunk_header *chunk_at(const struct trace_process *p, uint64_t idx, size_t *avail)
{
	uint64_t off = FNT_HEADER_SIZE + idx * (uint64_t)p->hdr.chunk_size;
	if (off + FNT_CHUNK_HDR_SIZE > p->size)
		return NULL;
	*avail = p->size - off < p->hdr.chunk_size ? (size_t)(p->size - off) : p->hdr.chunk_size;
	return (const void *)(p->map + off);
}

/* A copy of chunk idx's header, read with pread when the file is open: the
 * scan at open time touches every chunk, and through the mapping each touch
 * would make the kernel map the neighbouring pages too (fault-around),
 * holding a quarter of a large trace in memory.  Returns NULL past the end. */
static const struct fnt_chunk_header *chunk_header(const struct trace_process *p, uint64_t idx,
						   struct fnt_chunk_header *buf, size_t *avail)
{
	uint64_t off = FNT_HEADER_SIZE + idx * (uint64_t)p->hdr.chunk_size;
	if (off + FNT_CHUNK_HDR_SIZE > p->size)
		return NULL;
	*avail = p->size - off < p->hdr.chunk_size ? (size_t)(p->size - off) : p->hdr.chunk_size;
	if (p->fd >= 0 && pread(p->fd, buf, sizeof(*buf), (off_t)off) == (ssize_t)sizeof(*buf))
		return buf;
	memcpy(buf, p->map + off, sizeof(*buf));
	return buf;
}

/* After an unused chunk idx, the index of the chunk before the next one that
 * holds any data: the holes of a sparse file are skipped with one lseek
 * each, not read chunk by chunk, so opening takes the time of what the file
 * holds, not of its size (a hostile 4 TiB sparse file opens at once). */
static uint64_t skip_hole(const struct trace_process *p, uint64_t idx)
{
	uint64_t from = FNT_HEADER_SIZE + (idx + 1) * (uint64_t)p->hdr.chunk_size;
	off_t data;
	if (p->fd < 0 || from >= p->size)
		return idx;
	data = lseek(p->fd, (off_t)from, SEEK_DATA);
	if (data < 0)           /* ENXIO: no data after it; else: no skipping */
		return errno == ENXIO ? p->n_chunks - 1 : idx;
	if ((uint64_t)data <= from)
		return idx;
	return ((uint64_t)data - FNT_HEADER_SIZE) / p->hdr.chunk_size - 1;
}

static void clock_point(struct trace_process *p, uint64_t ticks, uint64_t mono)
{
	if (ticks > p->max_ticks && mono > p->hdr.cal0_mono) {
		p->max_ticks = ticks;
		p->max_mono = mono;
	}
}

/* The modules loaded and not yet unloaded, hashed by (path, bias, lo): an
 * unload record closes the latest such load, found without a scan (a
 * trace may load and unload a plugin hundreds of thousands of times). */
static size_t open_key(const struct trace_process *p, const char *path, uint64_t bias, uint64_t lo)
{
	uint64_t h = file_key_hash(path, NULL, 0) ^ (bias * 0x9E3779B97F4A7C15ull) ^ (lo * 0xC2B2AE3D27D4EB4Full);
	return (size_t)((h ^ (h >> 29)) & (p->n_open_bucket - 1));
}

static void open_module_link(struct trace_process *p, size_t i)
{
	const struct trace_module *m = &p->modules[i];
	size_t b = open_key(p, p->trace->files[m->file].path, m->bias, m->lo);
	p->open_next[i] = p->open_bucket[b];
	p->open_bucket[b] = (uint32_t)i + 1;
}

static void open_module_add(struct trace_process *p, size_t i)
{
	if (p->n_modules * 2 > p->n_open_bucket) {
		/* rebuild: in index order, so each chain stays newest first */
		size_t n = p->n_open_bucket ? 2 * p->n_open_bucket : 64;
		while (n < p->n_modules * 2)
			n *= 2;
		free(p->open_bucket);
		p->open_bucket = calloc(n, sizeof(*p->open_bucket));
		if (!p->open_bucket) {
			fprintf(stderr, "fntrace: out of memory\n");
			exit(1);
		}
		p->n_open_bucket = n;
		for (size_t k = 0; k < p->n_modules; k++)
			if (p->modules[k].unload_ticks == UINT64_MAX)
				open_module_link(p, k);
		return;         /* module i was linked with the others */
	}
	open_module_link(p, i);
}

static void open_module_unload(struct trace_process *p, const char *path, uint64_t bias, uint64_t lo,
			       uint64_t ticks)
{
	if (!p->n_open_bucket)
		return;
	uint32_t *link = &p->open_bucket[open_key(p, path, bias, lo)];
	for (; *link; link = &p->open_next[*link - 1]) {
		struct trace_module *m = &p->modules[*link - 1];
		if (m->bias == bias && m->lo == lo && !strcmp(p->trace->files[m->file].path, path)) {
			m->unload_ticks = ticks;
			*link = p->open_next[*link - 1];
			return;
		}
	}
}

static void parse_meta(struct trace_process *p, const uint8_t *d, size_t len)
{
	struct trace *t = p->trace;
	size_t off = 0;
	while (off + 4 <= len) {
		uint32_t head;
		memcpy(&head, d + off, 4);
		if (!head)
			break;
		uint32_t type = head & 0xff, rlen = head >> 8;
		if (rlen > len - off - 4) {
			warn(t, "'%s': a module record runs past its chunk; rest of the module map skipped", p->file);
			return;
		}
		const uint8_t *r = d + off + 4;
		if ((type == FNT_META_MODULE_LOAD || type == FNT_META_MODULE_UNLOAD) &&
		    rlen > sizeof(struct fnt_meta_module)) {
			struct fnt_meta_module mm;
			memcpy(&mm, r, sizeof(mm));
			const char *path = (const char *)r + sizeof(mm);
			size_t plen = strnlen(path, rlen - sizeof(mm));
			char pathbuf[4096];
			if (plen >= sizeof(pathbuf))
				plen = sizeof(pathbuf) - 1;
			memcpy(pathbuf, path, plen);
			pathbuf[plen] = 0;
			if (mm.build_id_len > sizeof(mm.build_id) || mm.hi <= mm.lo) {
				warn(t, "'%s': a corrupt module record was skipped", p->file);
			} else if (type == FNT_META_MODULE_LOAD) {
				if (p->n_modules == p->cap_modules) {
					p->cap_modules = p->cap_modules ? 2 * p->cap_modules : 16;
					p->modules = xrealloc_(p->modules, p->cap_modules * sizeof(*p->modules));
					p->open_next = xrealloc_(p->open_next, p->cap_modules * sizeof(*p->open_next));
				}
				struct trace_module *m = &p->modules[p->n_modules++];
				memset(m, 0, sizeof(*m));
				m->file = file_ref(t, pathbuf, mm.build_id, mm.build_id_len);
				m->bias = mm.bias;
				m->lo = mm.lo;
				m->hi = mm.hi;
				m->load_ticks = mm.ticks;
				m->unload_ticks = UINT64_MAX;
				open_module_add(p, p->n_modules - 1);
			} else {
				open_module_unload(p, pathbuf, mm.bias, mm.lo, mm.ticks);
			}
		} else if (type == FNT_META_THREAD && rlen >= sizeof(struct fnt_meta_thread)) {
			struct fnt_meta_thread mt;
			memcpy(&mt, r, sizeof(mt));
			if (mt.thread < MAX_THREADS_PER_PROC) {
				struct trace_thread *th = thread_get(p, mt.thread, mt.tid);
				th->tid = mt.tid;
				if (!th->name[0])
					memcpy(th->name, mt.name, 16);
			}
		} else if (type == FNT_META_SCOPE && rlen > 16) {
			uint64_t rec[2];
			memcpy(rec, r, 16);
			size_t nlen = strnlen((const char *)r + 16, rlen - 16);
			t->scopes = grow_(t->scopes, t->n_scopes, sizeof(*t->scopes));
			struct trace_scope *sc = &t->scopes[t->n_scopes++];
			sc->name = malloc(nlen + 1);
			if (!sc->name)
				exit(1);
			memcpy(sc->name, r + 16, nlen);
			sc->name[nlen] = 0;
			/* resolved once the whole module map is known (process_scan) */
			sc->file = TRACE_NO_FILE;
			sc->vaddr = rec[1];
			p->scope_ticks = grow_(p->scope_ticks, p->n_scope_ticks, sizeof(*p->scope_ticks));
			p->scope_ticks[p->n_scope_ticks++] = (struct scope_pending){ t->n_scopes - 1, rec[0] };
		} else if (type == FNT_META_FILTERS) {
			free(p->filters);
			p->filters = malloc(rlen + 1);
			if (!p->filters)
				exit(1);
			memcpy(p->filters, r, rlen);
			p->filters[rlen] = 0;
		} else if (type == FNT_META_UNTRACED && rlen > sizeof(struct fnt_meta_untraced)) {
			struct fnt_meta_untraced mu;
			memcpy(&mu, r, sizeof(mu));
			size_t pl = strnlen((const char *)r + sizeof(mu), rlen - sizeof(mu));
			if (p->n_untraced < 100000) {
				p->untraced = xrealloc_(p->untraced, (p->n_untraced + 1) * sizeof(*p->untraced));
				struct trace_untraced *u = &p->untraced[p->n_untraced++];
				u->pid = mu.pid;
				u->reason = mu.reason;
				u->path = xrealloc_(NULL, pl + 1);
				memcpy(u->path, r + sizeof(mu), pl);
				u->path[pl] = 0;
			}
		} else if (type == FNT_META_PATCH && rlen > sizeof(struct fnt_meta_patch)) {
			struct fnt_meta_patch mp;
			memcpy(&mp, r, sizeof(mp));
			size_t nl = strnlen((const char *)r + sizeof(mp), rlen - sizeof(mp));
			if (p->n_patches < 1000000) {
				p->patches = grow_(p->patches, p->n_patches, sizeof(*p->patches));
				struct trace_patch *tp = &p->patches[p->n_patches++];
				tp->addr = mp.addr;
				tp->what = mp.what;
				tp->count = mp.count;
				tp->name = xrealloc_(NULL, nl + 1);
				memcpy(tp->name, r + sizeof(mp), nl);
				tp->name[nl] = 0;
			}
		} else if (type == FNT_META_ARGSPEC && rlen > sizeof(struct fnt_meta_argspec)) {
			struct fnt_meta_argspec ma;
			memcpy(&ma, r, sizeof(ma));
			const char *text = (const char *)r + sizeof(ma);
			size_t tl = strnlen(text, rlen - sizeof(ma));
			if (p->n_argspecs < 1000000) {
				p->argspecs = grow_(p->argspecs, p->n_argspecs, sizeof(*p->argspecs));
				struct trace_argspec *a = &p->argspecs[p->n_argspecs++];
				a->addr = ma.addr;
				a->text = xrealloc_(NULL, tl + 1);
				memcpy(a->text, text, tl);
				a->text[tl] = 0;
			}
		} else {
			warn(t, "'%s': unknown meta record type %u skipped", p->file, type);
		}
		off += (4 + rlen + 7) & ~(size_t)7;
	}
}

struct seq_item {
	uint32_t seq, idx;
};

static int cmp_seq(const void *a, const void *b)
{
	const struct seq_item *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void process_scan(struct trace_process *p)
{
	struct seq_item *meta = NULL;
	size_t n_meta = 0;

	clock_point(p, p->hdr.cal1_ticks, p->hdr.cal1_mono);
	if (p->hdr.end_flags & 1)
		clock_point(p, p->hdr.end_ticks, p->hdr.end_mono);
	for (uint64_t i = 0; i < p->n_chunks; i++) {
		size_t avail = 0;
		struct fnt_chunk_header hbuf;
		const struct fnt_chunk_header *ch = chunk_header(p, i, &hbuf, &avail);
		if (!ch)
			break;
		if (ch->magic != FNT_CHUNK_MAGIC) {
			/* (in a ring, a zero magic is a chunk being rewritten) */
			if (ch->magic || (ch->type && !(p->hdr.flags & FNT_FLAG_RING)))
				p->damaged_chunks++;
			else if (!ch->type)
				i = skip_hole(p, i);
			continue;
		}
		if (ch->type == FNT_CHUNK_META) {
			meta = grow_(meta, n_meta, sizeof(*meta));
			meta[n_meta++] = (struct seq_item){ ch->seq, (uint32_t)i };
			clock_point(p, ch->base_ticks, ch->mono_ns);
		} else if (ch->type == FNT_CHUNK_EVENTS && ch->thread < MAX_THREADS_PER_PROC) {
			struct trace_thread *th = thread_get(p, ch->thread, ch->tid);
			if (th->n_chunks == th->cap_chunks) {
				th->cap_chunks = th->cap_chunks ? th->cap_chunks * 2 : 4;
				th->chunks = xrealloc_(th->chunks, th->cap_chunks * sizeof(*th->chunks));
			}
			th->chunks[th->n_chunks++] = (uint32_t)i;
			clock_point(p, ch->base_ticks, ch->mono_ns);
		} else {
			p->damaged_chunks++;
		}
	}
	if (n_meta)   /* qsort(NULL, 0) is undefined */
		qsort(meta, n_meta, sizeof(*meta), cmp_seq);
	for (size_t i = 0; i < n_meta; i++) {
		size_t avail = 0;
		const struct fnt_chunk_header *ch = chunk_at(p, meta[i].idx, &avail);
		parse_meta(p, (const uint8_t *)ch + FNT_CHUNK_HDR_SIZE, avail - FNT_CHUNK_HDR_SIZE);
	}
	free(meta);
	/* modules recorded by the start-up scan */
	for (size_t i = 0; i < p->n_modules; i++)
		if (p->modules[i].load_ticks <= p->hdr.cal1_ticks)
			p->modules[i].at_start = 1;
	for (size_t i = 0; i < p->n_scope_ticks; i++) {
		struct trace_scope *sc = &p->trace->scopes[p->scope_ticks[i].scope];
		const struct trace_module *m = module_at(p, sc->vaddr, p->scope_ticks[i].ticks);
		if (m) {
			sc->file = m->file;
			sc->vaddr -= m->bias;
		}
	}
	free(p->scope_ticks);
	p->scope_ticks = NULL;
	p->n_scope_ticks = 0;
	free(p->thread_index);
	p->thread_index = NULL;
	p->n_thread_index = 0;
	free(p->open_bucket);
	free(p->open_next);
	p->open_bucket = p->open_next = NULL;
	p->n_open_bucket = 0;
	/* each thread's chunks in sequence order; note holes */
	for (size_t i = 0; i < p->n_threads; i++) {
		struct trace_thread *th = &p->threads[i];
		struct seq_item *items = calloc(th->n_chunks ? th->n_chunks : 1, sizeof(*items));
		if (!items)
			exit(1);
		for (size_t k = 0; k < th->n_chunks; k++) {
			size_t avail = 0;
			struct fnt_chunk_header hbuf;
			items[k].seq = chunk_header(p, th->chunks[k], &hbuf, &avail)->seq;
			items[k].idx = th->chunks[k];
		}
		qsort(items, th->n_chunks, sizeof(*items), cmp_seq);
		/* A ring is contiguous: a hole in it can only be a chunk a snapshot
		 * left out (rewritten while it was copied).  The history is then
		 * the run of chunks after the last hole. */
		size_t from = 0;
		if (p->hdr.flags & FNT_FLAG_RING)
			for (size_t k = 1; k < th->n_chunks; k++)
				if (items[k].seq != items[k - 1].seq + 1)
					from = k;
		if (from) {
			memmove(items, items + from, (th->n_chunks - from) * sizeof(*items));
			th->n_chunks -= from;
		}
		for (size_t k = 0; k < th->n_chunks; k++) {
			th->chunks[k] = items[k].idx;
			if (k && items[k].seq != items[k - 1].seq + 1)
				p->missing_chunks += items[k].seq - items[k - 1].seq - 1;
		}
		th->first_seq = th->n_chunks ? items[0].seq : 0;
		if (th->n_chunks) {
			size_t avail = 0;
			struct fnt_chunk_header hbuf;
			const struct fnt_chunk_header *ch = chunk_header(p, th->chunks[0], &hbuf, &avail);
			th->start_depth = ch->depth;
			if (ch->depth > MAX_START_DEPTH || ch->depth < -MAX_START_DEPTH) {
				warn(p->trace, "'%s': thread %u: its first chunk gives an impossible call depth (%d); "
				     "depths counted from 0", p->file, th->tid, (int)ch->depth);
				th->start_depth = 0;
			}
			if (!th->name[0])
				memcpy(th->name, ch->name, 16);
			/* in a ring, the chunks before the first one present were
			 * overwritten: that is where the history starts, not a hole */
			if (items[0].seq != 0 && !(p->hdr.flags & FNT_FLAG_RING))
				p->missing_chunks += items[0].seq;
			th->history_ticks = ch->base_ticks;
		}
		free(items);
	}
}

static void process_clock(struct trace_process *p)
{
	const struct fnt_file_header *h = &p->hdr;
	p->tick0 = h->cal0_ticks;
	p->scale = 1.0;
	if (h->clock == FNT_CLOCK_TSC && p->max_ticks > h->cal0_ticks) {
		p->scale = (double)(p->max_mono - h->cal0_mono) / (double)(p->max_ticks - h->cal0_ticks);
		if (!(p->scale > 1e-3 && p->scale < 1e3)) {
			warn(p->trace, "'%s': the clock calibration is unusable; times are in raw ticks", p->file);
			p->scale = 1.0;
		}
	}
	p->mult = (int64_t)(p->scale * 4294967296.0);
}

static int check_header(const struct fnt_file_header *h, size_t size, char *why, size_t len)
{
	if (memcmp(h->magic, FNT_FILE_MAGIC, 8)) {
		snprintf(why, len, "not a fntrace trace file (bad magic)");
		return -1;
	}
	if (h->version != FNT_FORMAT_VERSION) {
		snprintf(why, len, "format version %u is not supported (this fntrace reads version %u)",
			 h->version, FNT_FORMAT_VERSION);
		return -1;
	}
	if (h->header_size != FNT_HEADER_SIZE || h->chunk_size < FNT_MIN_CHUNK || h->chunk_size > FNT_MAX_CHUNK ||
	    h->chunk_size % 4096 || h->cmdline_len > sizeof(h->cmdline) ||
	    (h->clock != FNT_CLOCK_TSC && h->clock != FNT_CLOCK_MONOTONIC)) {
		snprintf(why, len, "corrupt file header");
		return -1;
	}
	(void)size;
	return 0;
}

static int process_init(struct trace *t, struct trace_process *p, const char *name, const uint8_t *map,
			size_t size, int fd, char *why, size_t whylen)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->trace = t;
	p->file = xstrdup_(name);
	p->map = map;
	p->size = size;
	if (size == 0) {
		snprintf(why, whylen, "file is empty");
		return -1;
	}
	/* a file that does not start as a trace is not a trace, whatever its size
	 * (a source file given to -d is not "truncated") */
	if (memcmp(map, FNT_FILE_MAGIC, size < 8 ? size : 8)) {
		snprintf(why, whylen, "not a fntrace trace file (it does not start with '%s')", FNT_FILE_MAGIC);
		return -1;
	}
	if (size < FNT_HEADER_SIZE) {
		snprintf(why, whylen, "file is truncated (%zu bytes, its header alone takes %u)", size,
			 FNT_HEADER_SIZE);
		return -1;
	}
	memcpy(&p->hdr, map, sizeof(p->hdr));
	p->hdr.exe[sizeof(p->hdr.exe) - 1] = 0;
	if (check_header(&p->hdr, size, why, whylen))
		return -1;
	if (size > FNT_HEADER_SIZE) {
		uint64_t body = size - FNT_HEADER_SIZE;
		p->n_chunks = body / p->hdr.chunk_size + (body % p->hdr.chunk_size >= FNT_CHUNK_HDR_SIZE);
		if (body % p->hdr.chunk_size)
			warn(t, "'%s': file is truncated inside chunk %llu (%llu of %u bytes present); "
			     "events up to the cut are kept", name, (unsigned long long)(body / p->hdr.chunk_size),
			     (unsigned long long)(body % p->hdr.chunk_size), p->hdr.chunk_size);
	}
	/* cut at a chunk boundary: the header knows how many were handed out */
	if (p->hdr.next_chunk > p->n_chunks && p->hdr.next_chunk < (1ull << 40) && !p->hdr.lost_nospace &&
	    (size - FNT_HEADER_SIZE) % p->hdr.chunk_size == 0)
		warn(t, "'%s': file is truncated: %llu of %llu chunks present; events up to the cut are kept",
		     name, (unsigned long long)p->n_chunks, (unsigned long long)p->hdr.next_chunk);
	/* argv */
	{
		const char *c = p->hdr.cmdline;
		size_t n = p->hdr.cmdline_len, off = 0;
		while (off < n) {
			size_t l = strnlen(c + off, n - off);
			char *a = malloc(l + 1);
			if (!a)
				exit(1);
			memcpy(a, c + off, l);
			a[l] = 0;
			p->argv = xrealloc_(p->argv, (size_t)(p->argc + 1) * sizeof(*p->argv));
			p->argv[p->argc++] = a;
			off += l + 1;
		}
	}
	process_scan(p);
	process_clock(p);
	return 0;
}

static void read_session(struct trace *t)
{
	char path[4200], *text, *line, *next;
	const char *why;
	size_t len;
	snprintf(path, sizeof(path), "%s/session", t->dir);
	text = fnt_read_small(path, FNT_OPEN_NOFOLLOW, MAX_SESSION_SIZE, &len, &why);
	if (!text) {
		if (errno != ENOENT)
			warn(t, "'%s': %s; ignored", path, why);
		return;
	}
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!strncmp(line, "command=", 8)) {
			free(t->session_command);
			t->session_command = xstrdup_(line + 8);
		} else if (!strncmp(line, "wait_status=", 12)) {
			t->session_has_status = 1;
			t->session_status = atoi(line + 12);
		} else if (!strncmp(line, "start_realtime_ns=", 18)) {
			t->session_start_real = strtoull(line + 18, NULL, 10);
		} else if (!strncmp(line, "clock_monotonic_ns=", 19)) {
			t->session_mono = strtoull(line + 19, NULL, 10);
		} else if (!strncmp(line, "clock_boottime_ns=", 18)) {
			t->session_boot = strtoull(line + 18, NULL, 10);
		}
	}
	free(text);
}

static int is_fnt(const char *name)
{
	size_t l = strlen(name);
	return l > 4 && !strcmp(name + l - 4, ".fnt");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_argspec(const void *a, const void *b);

static int cmp_pid_exec(const void *a, const void *b)
{
	const struct trace_process *x = *(struct trace_process *const *)a, *y = *(struct trace_process *const *)b;
	if (x->hdr.pid != y->hdr.pid)
		return x->hdr.pid < y->hdr.pid ? -1 : 1;
	return x->hdr.exec_seq < y->hdr.exec_seq ? -1 : x->hdr.exec_seq > y->hdr.exec_seq;
}

static void scope_hash_build(struct trace *t);

static void trace_finish_open(struct trace *t)
{
	scope_hash_build(t);
	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i].n_argspecs > 1)
			qsort(t->procs[i].argspecs, t->procs[i].n_argspecs, sizeof(*t->procs[i].argspecs), cmp_argspec);
	t->t0_mono = UINT64_MAX;
	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i].hdr.cal0_mono < t->t0_mono) {
			t->t0_mono = t->procs[i].hdr.cal0_mono;
			t->t0_real = t->procs[i].hdr.cal0_real;
		}
	if (t->t0_mono == UINT64_MAX)
		t->t0_mono = 0;
	/* by (pid, exec_seq), sorted rather than compared pairwise (a trace
	 * may hold many processes): an image followed by the next one of its
	 * pid ended in exec, unless it exited cleanly or was still running
	 * when the next one started (the same pid in another pid namespace,
	 * or a pid used again after a wrap) */
	if (t->n_procs > 1) {
		struct trace_process **by_pid = xrealloc_(NULL, t->n_procs * sizeof(*by_pid));
		for (size_t i = 0; i < t->n_procs; i++)
			by_pid[i] = &t->procs[i];
		qsort(by_pid, t->n_procs, sizeof(*by_pid), cmp_pid_exec);
		for (size_t i = 0; i + 1 < t->n_procs; i++)
			if (by_pid[i + 1]->hdr.pid == by_pid[i]->hdr.pid &&
			    by_pid[i + 1]->hdr.exec_seq > by_pid[i]->hdr.exec_seq && !(by_pid[i]->hdr.end_flags & 1) &&
			    by_pid[i + 1]->hdr.cal0_mono >= by_pid[i]->max_mono) {
				by_pid[i]->exec_replaced = 1;
				by_pid[i + 1]->after_exec = 1;
			}
		free(by_pid);
	}
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		p->off = (int64_t)(p->hdr.cal0_mono - t->t0_mono);
		for (size_t k = 0; k < p->n_modules; k++) {
			struct trace_module *m = &p->modules[k];
			double ns = ((double)(int64_t)(m->load_ticks - p->tick0)) * p->scale + (double)p->off;
			m->load_ns = m->at_start || ns < 0 ? 0 : ns >= 0x1p64 ? UINT64_MAX : (uint64_t)ns;
			ns = ((double)(int64_t)(m->unload_ticks - p->tick0)) * p->scale + (double)p->off;
			m->unload_ns = m->unload_ticks == UINT64_MAX || ns >= 0x1p64 ? UINT64_MAX : ns < 0 ? 0 : (uint64_t)ns;
		}
		if (p->damaged_chunks)
			warn(t, "'%s': %llu chunk(s) with a corrupt header skipped", p->file,
			     (unsigned long long)p->damaged_chunks);
		for (size_t k = 0; k < p->n_threads; k++) {
			struct trace_thread *th = &p->threads[k];
			double ns = ((double)(int64_t)(th->history_ticks - p->tick0)) * p->scale + (double)p->off;
			th->history_ns = ns < 0 ? 0 : ns >= 0x1p64 ? UINT64_MAX : (uint64_t)ns;
		}
	}
}

/* Named scopes are looked up once per distinct function: hashed, so that
 * a trace with many scope records does not make naming quadratic. */
static void scope_hash_build(struct trace *t)
{
	size_t n = 64, mask;
	while (n < 2 * t->n_scopes)
		n *= 2;
	t->scope_hash = calloc(n, sizeof(*t->scope_hash));
	if (!t->scope_hash) {
		fprintf(stderr, "fntrace: out of memory\n");
		exit(1);
	}
	t->scope_hash_size = n;
	mask = n - 1;
	for (size_t k = 0; k < t->n_scopes; k++) {
		const struct trace_scope *sc = &t->scopes[k];
		size_t j = func_key_hash(sc->file, sc->vaddr) & mask;
		while (t->scope_hash[j] && (t->scopes[t->scope_hash[j] - 1].file != sc->file ||
					    t->scopes[t->scope_hash[j] - 1].vaddr != sc->vaddr))
			j = (j + 1) & mask;
		if (!t->scope_hash[j])
			t->scope_hash[j] = (uint32_t)k + 1;
	}
}

const char *trace_scope_name(const struct trace *t, uint32_t file, uint64_t vaddr)
{
	size_t mask = t->scope_hash_size - 1;
	if (!t->scope_hash_size)
		return NULL;
	for (size_t j = func_key_hash(file, vaddr) & mask; t->scope_hash[j]; j = (j + 1) & mask) {
		const struct trace_scope *sc = &t->scopes[t->scope_hash[j] - 1];
		if (sc->file == file && sc->vaddr == vaddr)
			return sc->name;
	}
	return NULL;
}

int trace_open(struct trace **out, const char *dir, char *err, size_t errlen)
{
	struct trace *t;
	struct stat st;
	DIR *d = NULL;
	struct dirent *de;
	char **names = NULL;
	size_t n_names = 0;
	int single = 0;

	*out = NULL;
	if (stat(dir, &st)) {
		snprintf(err, errlen, "cannot open '%s': %s%s", dir, strerror(errno),
			 errno == ENOENT ? " (run 'fntrace record' first, or name the trace with -d)" : "");
		return -1;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		exit(1);
	t->dir = xstrdup_(dir);
	if (S_ISDIR(st.st_mode)) {
		d = opendir(dir);
		if (!d) {
			snprintf(err, errlen, "cannot open '%s': %s", dir, strerror(errno));
			trace_close(t);
			return -1;
		}
		while ((de = readdir(d))) {
			if (!is_fnt(de->d_name))
				continue;
			names = grow_(names, n_names, sizeof(*names));
			names[n_names] = malloc(strlen(dir) + strlen(de->d_name) + 2);
			if (!names[n_names])
				exit(1);
			sprintf(names[n_names++], "%s/%s", dir, de->d_name);
		}
		closedir(d);
		if (n_names)
			qsort(names, n_names, sizeof(*names), cmp_str);
		read_session(t);
	} else {
		names = xrealloc_(names, sizeof(*names));
		names[n_names++] = xstrdup_(dir);
		single = 1;
	}
	t->procs = calloc(n_names ? n_names : 1, sizeof(*t->procs));
	if (!t->procs)
		exit(1);
	for (size_t i = 0; i < n_names; i++) {
		char why[256];
		const char *reason;
		/* a file named on the command line may be a link; inside a
		 * directory, only what the recorder wrote: regular files */
		int fd = fnt_open_regular(names[i], single ? 0 : FNT_OPEN_NOFOLLOW, &st, &reason);
		const uint8_t *map = NULL;
		size_t size = 0;
		if (fd < 0) {
			snprintf(why, sizeof(why), "%s", reason);
			goto bad;
		}
		size = (size_t)st.st_size;
		if (size) {
			void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (m == MAP_FAILED) {
				snprintf(why, sizeof(why), "cannot map: %s", strerror(errno));
				close(fd);
				goto bad;
			}
			map = m;
			fnt_mapguard_add(map, size);
		}
		if (process_init(t, &t->procs[t->n_procs], names[i], map, size, fd, why, sizeof(why)) == 0) {
			/* the headers are read; events come through the mapping */
			close(fd);
			t->procs[t->n_procs].fd = -1;
			t->n_procs++;
			continue;
		}
		close(fd);
		if (map) {
			fnt_mapguard_remove(map);
			munmap((void *)map, size);
		}
		free(t->procs[t->n_procs].file);
		free(t->procs[t->n_procs].argv);
	bad:
		if (n_names == 1) {
			snprintf(err, errlen, "'%s': %s", names[i], why);
			for (size_t k = 0; k < n_names; k++)
				free(names[k]);
			free(names);
			trace_close(t);
			return -1;
		}
		warn(t, "'%s': %s; file skipped", names[i], why);
	}
	for (size_t k = 0; k < n_names; k++)
		free(names[k]);
	free(names);
	if (!t->n_procs && n_names) {
		snprintf(err, errlen, "'%s': no readable trace file (%zu damaged)", dir, n_names);
		trace_close(t);
		return -1;
	}
	trace_finish_open(t);
	*out = t;
	return 0;
}

int trace_open_buffer(struct trace **out, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	struct trace *t = calloc(1, sizeof(*t));
	char why[256];
	if (!t)
		exit(1);
	t->dir = xstrdup_("<buffer>");
	t->procs = calloc(1, sizeof(*t->procs));
	if (!t->procs)
		exit(1);
	if (process_init(t, &t->procs[0], "<buffer>", buf, len, -1, why, sizeof(why))) {
		snprintf(err, errlen, "%s", why);
		free(t->procs[0].file);
		for (int i = 0; i < t->procs[0].argc; i++)
			free(t->procs[0].argv[i]);
		free(t->procs[0].argv);
		for (size_t i = 0; i < t->procs[0].n_threads; i++)
			free(t->procs[0].threads[i].chunks);
		free(t->procs[0].threads);
		free(t->procs[0].modules);
		free(t->procs[0].filters);
		for (size_t i = 0; i < t->procs[0].n_argspecs; i++)
			free(t->procs[0].argspecs[i].text);
		free(t->procs[0].argspecs);
		t->procs[0].map = NULL;
		trace_close(t);
		*out = NULL;
		return -1;
	}
	t->n_procs = 1;
	trace_finish_open(t);
	t->borrowed = 1;
	*out = t;
	return 0;
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	int borrowed = t->borrowed;
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		if (p->map && p->size && !borrowed) {
			fnt_mapguard_remove(p->map);
			munmap((void *)p->map, p->size);
		}
		if (p->fd >= 0 && !borrowed)
			close(p->fd);
		for (size_t k = 0; k < p->n_threads; k++) {
			free(p->threads[k].chunks);
			free(p->threads[k].inherited);
		}
		free(p->threads);
		free(p->thread_index);
		free(p->open_bucket);
		free(p->open_next);
		free(p->modules);
		free(p->scope_ticks);
		free(p->filters);
		for (size_t k = 0; k < p->n_untraced; k++)
			free(p->untraced[k].path);
		free(p->untraced);
		for (size_t k = 0; k < p->n_patches; k++)
			free(p->patches[k].name);
		free(p->patches);
		for (size_t k = 0; k < p->n_argspecs; k++)
			free(p->argspecs[k].text);
		free(p->argspecs);
		for (int k = 0; k < p->argc; k++)
			free(p->argv[k]);
		free(p->argv);
		free(p->file);
	}
	free(t->procs);
	for (size_t i = 0; i < t->n_files; i++)
		free(t->files[i].path);
	free(t->files);
	free(t->file_hash);
	free(t->funcs);
	free(t->func_hash);
	for (size_t i = 0; i < t->n_scopes; i++)
		free(t->scopes[i].name);
	free(t->scopes);
	free(t->scope_hash);
	for (size_t i = 0; i < t->n_warnings; i++)
		free(t->warnings[i]);
	free(t->warnings);
	free(t->session_command);
	free(t->dir);
	free(t);
}

/* ---- decoding ---- */

struct cache_slot {
	uint64_t addr;
	uint32_t func;
	uint32_t gen;
};

/* Functions and call-site modules of addresses already resolved in this
 * walk, by (process, address, module changes applied): a resolution holds
 * between two module changes, so an address evicted from the format's
 * 64-slot cache is not looked up in the module map again.  One for the
 * whole walk, whatever the number of threads. */
#define RESOLVED_BITS 10
#define SITE_BITS 9

struct resolved_slot {
	const struct trace_process *p;
	uint64_t addr;
	uint32_t func, gen;
};

struct site_slot {
	const struct trace_process *p;
	uint64_t addr, bias;
	uint32_t file, gen;
};

struct walk_cache {
	struct resolved_slot resolved[1u << RESOLVED_BITS];
	struct site_slot sites[1u << SITE_BITS];
};

struct cursor {
	struct trace_thread *th;
	struct trace_process *p;
	size_t ci;                   /* next chunk (index into th->chunks) */
	const uint8_t *pos, *end;    /* event data of the current chunk */
	const uint8_t *chunk_base;
	uint64_t ticks, prev_new;
	uint32_t gen;                /* module changes applied so far */
	uint64_t next_change;        /* ticks of the next module change */
	uint64_t *changes;           /* sorted module change times of the process */
	size_t n_changes;
	struct cache_slot cache[FNT_CACHE_SLOTS];
	struct walk_cache *wc;
	/* the thread's clock went back at some point: the times of its
	 * later events may lie before module changes already applied (gen),
	 * so it resolves every address afresh, as the format says */
	int ticks_went_back;
	struct trace_event *buf;     /* decoded batch: buf[i..n) not yet handed out */
	size_t i, n, cap;            /* cap: size of buf (at most TRACE_BATCH) */
	uint64_t max_ns;             /* latest time in buf[0..n) */
	/* the body of the MARK / STACK event that ended the current batch */
	struct trace_body body;
	char text[FNT_MARK_MAX + 1];
	uint64_t stack[FNT_STACK_MAX], stack_vaddr[FNT_STACK_MAX];
	uint32_t stack_file[FNT_STACK_MAX];
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void process_changes(struct trace_process *p, uint64_t **out, size_t *n)
{
	uint64_t *c = malloc((2 * p->n_modules + 1) * sizeof(*c));
	size_t k = 0;
	if (!c)
		exit(1);
	/* the loads of modules present at start too: module_at() can change
	 * there as well (an at-start module whose unload record comes first) */
	for (size_t i = 0; i < p->n_modules; i++) {
		c[k++] = p->modules[i].load_ticks;
		if (p->modules[i].unload_ticks != UINT64_MAX)
			c[k++] = p->modules[i].unload_ticks;
	}
	qsort(c, k, sizeof(*c), cmp_u64);
	*out = c;
	*n = k;
}

/* bytes from pos to the last non-zero byte of the chunk data */
static uint64_t nonzero_rest(const uint8_t *pos, const uint8_t *end)
{
	const uint8_t *e = end;
	while (e > pos && !e[-1])
		e--;
	return (uint64_t)(e - pos);
}

static void chunk_damage(struct cursor *c, const uint8_t *at)
{
	uint64_t n = nonzero_rest(at, c->end);
	if (n)
		c->p->damaged_bytes += n;
	c->pos = c->end;
}

/* Done with the current chunk: drop its pages from this process (they stay
 * in the page cache), so decoding memory does not grow with the trace. */
static void chunk_done(struct cursor *c)
{
	if (!c->chunk_base || !c->p->size)
		return;
	uintptr_t a = (uintptr_t)c->chunk_base & ~(uintptr_t)4095;
	uintptr_t e = (uintptr_t)c->end & ~(uintptr_t)4095;
	if (e > a && !c->p->trace->borrowed)
		madvise((void *)a, e - a, MADV_DONTNEED);
	c->chunk_base = NULL;
}

static int cursor_chunk(struct cursor *c)
{
	chunk_done(c);
	while (c->ci < c->th->n_chunks) {
		size_t avail = 0;
		const struct fnt_chunk_header *ch = chunk_at(c->p, c->th->chunks[c->ci++], &avail);
		c->p->trace->chunks_walked++;
		if (!ch)
			continue;
		c->chunk_base = (const uint8_t *)ch;
		c->pos = (const uint8_t *)ch + FNT_CHUNK_HDR_SIZE;
		c->end = (const uint8_t *)ch + avail;
		if (ch->base_ticks < c->ticks)
			c->ticks_went_back = 1;
		c->ticks = ch->base_ticks;
		c->prev_new = 0;
		memset(c->cache, 0, sizeof(c->cache));
		if (ch->name[0])
			memcpy(c->th->name, ch->name, 16);
		return 1;
	}
	return 0;
}

/* A varint at p, bounded by end.  Returns its length, 0 for a zero byte
 * (end of data), -1 when it runs past end. */
static inline int get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	if (likely_(p + 8 <= end))
		return (int)fnt_varint_get(p, v);
	if (p >= end)
		return -1;
	uint8_t tmp[8] = { 0 };
	memcpy(tmp, p, (size_t)(end - p));
	unsigned len = fnt_varint_get(tmp, v);
	if (len && p + len > end)
		return -1;
	return (int)len;
}

static inline uint64_t to_ns_(uint64_t tick0, int64_t mult, int64_t off, uint64_t ticks)
{
	int64_t d = (int64_t)(ticks - tick0);
	__int128 prod = (__int128)d * mult;
	uint64_t hi = (uint64_t)(prod >> 64);
	/* the usual case in 64 bits: 0 <= prod < 2^95 and off >= 0, so the
	 * sum below is under 2^64 - 1 and the clamps cannot apply */
	if (likely_(hi < (1ull << 31) && off >= 0))
		return (uint64_t)(prod >> 32) + (uint64_t)off;
	__int128 ns = (prod >> 32) + off;
	if (ns <= 0)
		return 0;
	return ns >= (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

static inline uint64_t to_ns(const struct trace_process *p, uint64_t ticks)
{
	return to_ns_(p->tick0, p->mult, p->off, ticks);
}

static inline void apply_changes(struct cursor *c)
{
	while (c->ticks >= c->next_change) {
		c->gen++;
		c->next_change = c->gen < c->n_changes ? c->changes[c->gen] : UINT64_MAX;
	}
}

/* The module of a call site (its file and bias), cached like functions */
static void site_module(const struct trace_process *p, uint64_t site, uint64_t ticks, uint32_t *file,
			uint64_t *bias)
{
	const struct trace_module *m = module_at(p, site, ticks);
	*file = m ? m->file : TRACE_NO_FILE;
	*bias = m ? m->bias : 0;
}

static inline void site_of(struct cursor *c, uint64_t site, uint64_t ticks, uint32_t *file, uint64_t *bias)
{
	struct site_slot *s = &c->wc->sites[(site * 0x9E3779B97F4A7C15ull) >> (64 - SITE_BITS)];
	if (c->ticks_went_back) {
		site_module(c->p, site, ticks, file, bias);
		return;
	}
	if (s->addr != site || s->p != c->p || s->gen != c->gen + 1) {
		site_module(c->p, site, ticks, &s->file, &s->bias);
		s->p = c->p;
		s->addr = site;
		s->gen = c->gen + 1;
	}
	*file = s->file;
	*bias = s->bias;
}

static void callsite_resolve(struct cursor *c, struct trace_event *ev)
{
	uint64_t bias;
	site_of(c, ev->callsite, c->ticks, &ev->callsite_file, &bias);
	ev->callsite_vaddr = ev->callsite - bias;
}

/* Decode the next event of the cursor's thread into ev.  Returns 1, or 0 at
 * the end of the thread's stream. */
static int cursor_next(struct cursor *c, struct trace_event *ev)
{
	for (;;) {
		const uint8_t *p = c->pos, *start = p;
		uint64_t v, d;
		int n;

		/* fast path: an ENTRY/EXIT that hits a resolved cache slot */
		if (likely_(c->end - p >= 8 && *p)) {   /* not p + 8: p is NULL before the first chunk */
			unsigned len = fnt_varint_get(p, &v);
			struct cache_slot *s = &c->cache[(v >> 2) & 63];
			if (likely_((v & 2) == 0 && s->addr && s->gen == c->gen + 1 &&
				    c->ticks + (v >> 8) < c->next_change &&
				    !(c->p->hdr.flags & (FNT_FLAG_CALLSITE | FNT_FLAG_ARGS)))) {
				c->ticks += v >> 8;
				c->pos = p + len;
				ev->kind = (v & 1) ? TRACE_EXIT : TRACE_ENTRY;
				ev->func = s->func;
				ev->addr = s->addr;
				ev->ns = to_ns(c->p, c->ticks);
				ev->thread = c->th;
				ev->callsite = 0;
				c->th->events++;
				c->th->last_ns = ev->ns;
				return 1;
			}
		}

		if (p >= c->end || !*p) {
			if (p < c->end)
				c->p->damaged_bytes += nonzero_rest(p, c->end);
			if (!cursor_chunk(c))
				return 0;
			continue;
		}
		n = get_varint(p, c->end, &v);
		if (n <= 0) {
			chunk_damage(c, start);
			continue;
		}
		p += n;
		unsigned kind = v & 3, payload = (v >> 2) & 63;
		d = v >> 8;
		switch (kind) {
		case FNT_K_ENTRY:
		case FNT_K_EXIT: {
			struct cache_slot *s = &c->cache[payload];
			if (!s->addr) {
				chunk_damage(c, start);
				continue;
			}
			c->ticks += d;
			apply_changes(c);
			if (s->gen != c->gen + 1) {
				s->func = resolve(c->p, s->addr, c->ticks);
				s->gen = c->gen + 1;
			}
			ev->kind = kind == FNT_K_ENTRY ? TRACE_ENTRY : TRACE_EXIT;
			ev->func = s->func;
			ev->addr = s->addr;
			break;
		}
		case FNT_K_NEW: {
			uint64_t zz;
			if (payload > 1) {
				chunk_damage(c, start);
				continue;
			}
			n = get_varint(p, c->end, &zz);
			if (n <= 0) {        /* torn: the process died between the two stores */
				chunk_damage(c, start);
				continue;
			}
			p += n;
			uint64_t addr = c->prev_new + (uint64_t)fnt_unzigzag(zz);
			if (!addr || addr >= (1ull << 57)) {
				chunk_damage(c, start);
				continue;
			}
			c->ticks += d;
			apply_changes(c);
			c->prev_new = addr;
			struct cache_slot *s = &c->cache[fnt_slot(addr)];
			struct resolved_slot *r =
				&c->wc->resolved[(addr * 0x9E3779B97F4A7C15ull) >> (64 - RESOLVED_BITS)];
			s->addr = addr;
			s->gen = c->gen + 1;
			if (c->ticks_went_back) {
				s->func = resolve(c->p, addr, c->ticks);
			} else {
				if (r->addr != addr || r->p != c->p || r->gen != c->gen + 1) {
					r->p = c->p;
					r->addr = addr;
					r->func = resolve(c->p, addr, c->ticks);
					r->gen = c->gen + 1;
				}
				s->func = r->func;
			}
			ev->kind = payload ? TRACE_EXIT : TRACE_ENTRY;
			ev->func = s->func;
			ev->addr = addr;
			break;
		}
		default: /* FNT_K_EXT */
			switch (payload) {
			case FNT_EXT_TIME: {
				uint64_t t;
				if (d || p + 8 > c->end) {
					chunk_damage(c, start);
					continue;
				}
				memcpy(&t, p, 8);
				p += 8;
				if (t < c->ticks)
					c->ticks_went_back = 1;
				c->ticks = t;
				c->pos = p;
				continue;
			}
			case FNT_EXT_CALLSITE: {   /* stray: callsites are read with their entry */
				uint64_t zz;
				n = get_varint(p, c->end, &zz);
				if (n <= 0) {
					chunk_damage(c, start);
					continue;
				}
				c->pos = p + n;
				continue;
			}
			case FNT_EXT_LOST:          /* a count: events dropped here */
			case FNT_EXT_UNWIND: {      /* a count: frames a longjmp left */
				uint64_t cnt;
				n = get_varint(p, c->end, &cnt);
				if (n <= 0) {
					chunk_damage(c, start);
					continue;
				}
				p += n;
				c->ticks += d;
				ev->kind = payload == FNT_EXT_LOST ? TRACE_LOST : TRACE_UNWIND;
				ev->count = cnt;
				if (payload == FNT_EXT_LOST)
					c->th->lost += cnt;
				break;
			}
			case FNT_EXT_SWITCH: {      /* a stack switch (coroutines) */
				uint64_t id;
				n = get_varint(p, c->end, &id);
				if (n <= 0) {
					chunk_damage(c, start);
					continue;
				}
				p += n;
				c->ticks += d;
				ev->kind = TRACE_SWITCH;
				ev->count = id;
				break;
			}
			case FNT_EXT_THREAD_NAME: {
				if (d || p >= c->end || p + 1 + *p > c->end || *p > 16) {
					chunk_damage(c, start);
					continue;
				}
				memset(c->th->name, 0, sizeof(c->th->name));
				memcpy(c->th->name, p + 1, *p);
				c->pos = p + 1 + *p;
				continue;
			}
			case FNT_EXT_ARGS:          /* stray: payloads are read with their event */
			case FNT_EXT_RETVAL: {
				uint64_t len;
				n = get_varint(p, c->end, &len);
				if (d || n <= 0 || len > (uint64_t)(c->end - p - n)) {
					chunk_damage(c, start);
					continue;
				}
				c->pos = p + n + len;
				continue;
			}
			case FNT_EXT_FORK: {        /* the fork this process came from */
				uint64_t ft, tid;
				if (d || p + 8 >= c->end || (n = get_varint(p + 8, c->end, &tid)) <= 0 || tid > UINT32_MAX) {
					chunk_damage(c, start);
					continue;
				}
				memcpy(&ft, p, 8);
				c->th->fork_ticks = ft;
				c->th->fork_tid = (uint32_t)tid;
				c->pos = p + 8 + n;
				continue;
			}
			case FNT_EXT_THREAD_END:
				c->ticks += d;
				ev->kind = TRACE_THREAD_END;
				c->th->ended = 1;
				break;
			case FNT_EXT_MARK:
				if (p >= c->end || p + 1 + *p > c->end) {
					chunk_damage(c, start);
					continue;
				}
				c->ticks += d;
				memcpy(c->text, p + 1, *p);
				c->text[*p] = 0;
				ev->kind = TRACE_MARK;
				c->body = (struct trace_body){ .text = c->text, .text_len = *p };
				ev->body = &c->body;
				p += 1 + *p;
				break;
			case FNT_EXT_STACK: {
				uint64_t cnt, addr = 0;
				n = get_varint(p, c->end, &cnt);
				if (n <= 0 || !cnt || cnt > FNT_STACK_MAX) {
					chunk_damage(c, start);
					continue;
				}
				p += n;
				for (uint64_t i = 0; i < cnt && n > 0; i++) {
					uint64_t zz = 0;
					n = get_varint(p, c->end, &zz);
					p += n > 0 ? n : 0;
					addr += (uint64_t)fnt_unzigzag(zz);
					c->stack[i] = addr;
				}
				if (n <= 0) {
					chunk_damage(c, start);
					continue;
				}
				c->ticks += d;
				for (uint64_t i = 0; i < cnt; i++) {
					/* a return address: the call is the byte before it */
					const struct trace_module *m = module_at(c->p, c->stack[i] - 1, c->ticks);
					c->stack_file[i] = m ? m->file : TRACE_NO_FILE;
					c->stack_vaddr[i] = m ? c->stack[i] - m->bias : c->stack[i];
				}
				ev->kind = TRACE_STACK;
				ev->count = cnt;
				c->body = (struct trace_body){ .stack = c->stack, .stack_file = c->stack_file,
							       .stack_vaddr = c->stack_vaddr };
				ev->body = &c->body;
				break;
			}
			default:
				chunk_damage(c, start);
				continue;
			}
		}
		c->pos = p;
		ev->ns = to_ns(c->p, c->ticks);
		ev->thread = c->th;
		ev->callsite = 0;
		if (ev->kind == TRACE_ENTRY && (c->p->hdr.flags & FNT_FLAG_CALLSITE)) {
			/* the CALLSITE record that follows its entry */
			uint64_t h = 0, zz = 0;
			n = get_varint(p, c->end, &h);
			if (n == 1 && h == ((uint64_t)FNT_EXT_CALLSITE << 2 | FNT_K_EXT)) {
				int n2 = get_varint(p + 1, c->end, &zz);
				if (n2 > 0) {
					c->pos = p + 1 + n2;
					ev->callsite = ev->addr + (uint64_t)fnt_unzigzag(zz);
					callsite_resolve(c, ev);
				}
			}
		}
		if (ev->kind == TRACE_ENTRY || ev->kind == TRACE_EXIT) {
			ev->payload = NULL;     /* (shares its place with count) */
			ev->payload_len = 0;
		}
		if ((ev->kind == TRACE_ENTRY || ev->kind == TRACE_EXIT) && (c->p->hdr.flags & FNT_FLAG_ARGS)) {
			/* the ARGS (after an entry) or RETVAL (after an exit) record */
			const uint8_t *q = c->pos;
			uint64_t h = 0, len = 0;
			unsigned want = ev->kind == TRACE_ENTRY ? FNT_EXT_ARGS : FNT_EXT_RETVAL;
			n = get_varint(q, c->end, &h);
			if (n == 1 && h == ((uint64_t)want << 2 | FNT_K_EXT)) {
				int n2 = get_varint(q + 1, c->end, &len);
				if (n2 > 0 && len <= (uint64_t)(c->end - q - 1 - n2)) {
					ev->payload = q + 1 + n2;
					ev->payload_len = (uint32_t)len;
					c->pos = q + 1 + n2 + len;
				}
			}
		}
		if (ev->kind == TRACE_ENTRY || ev->kind == TRACE_EXIT) {
			if (c->th->events++ == 0)
				c->th->first_ns = ev->ns;
		}
		c->th->last_ns = ev->ns;
		return 1;
	}
}

/* The fields fast_run() does not write: every event of a batch is of the
 * cursor's thread, and without call sites its call-site fields are 0 (the
 * slow path clears and sets a whole event, thread included). */
static void buffer_prepare(struct cursor *c)
{
	memset(c->buf, 0, c->cap * sizeof(*c->buf));
	for (size_t i = 0; i < c->cap; i++)
		c->buf[i].thread = c->th;
}

static void cursor_init(struct cursor *c, struct trace_thread *th, uint64_t *changes, size_t n_changes,
			struct walk_cache *wc, struct trace_event *buf, size_t cap)
{
	memset(c, 0, sizeof(*c));
	c->wc = wc;
	c->buf = buf;
	c->cap = cap;
	c->th = th;
	c->p = th->proc;
	c->changes = changes;
	c->n_changes = n_changes;
	c->next_change = n_changes ? changes[0] : UINT64_MAX;
	th->events = th->lost = 0;
	th->ended = 0;
	buffer_prepare(c);
}

static void walk_reset(struct trace *t)
{
	for (size_t i = 0; i < t->n_procs; i++) {
		t->procs[i].damaged_bytes = 0;
	}
	t->end_ns = 0;
	t->chunks_walked = 0;
}

/* the bytes of a varint of length 1..8 (index 0 unused) */
static const uint64_t varint_mask[9] = {
	0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull, 0xffffffffffffull, 0xffffffffffffffull,
	0xffffffffffffffffull,
};

/* The head byte of a CALLSITE, ARGS or RETVAL record: a 1-byte varint */
#define EXT_HEAD(e) ((uint8_t)((((unsigned)(e) << 2 | FNT_K_EXT) << 1) | 1))
#define CALLSITE_HEAD EXT_HEAD(FNT_EXT_CALLSITE)

/* Decode events into ev[0..] while they are the common kind: an ENTRY or
 * EXIT naming a slot resolved since the last module change, before the
 * next one, with at least 8 readable bytes (16 after an entry's head in a
 * trace with call sites, whose CALLSITE record it decodes too; with
 * values, an ARGS or RETVAL record that follows is the event's payload, as
 * cursor_next takes it).  Returns how many; the first event it does not
 * take is left for cursor_next.  cs and ar are constants at each call: a
 * copy of the loop for each, none with code it does not need. */
static inline __attribute__((always_inline)) size_t fast_run(struct cursor *c, struct trace_event *ev,
							     struct trace_event *ev_end, const int cs, const int ar)
{
	const struct trace_process *proc = c->p;
	const uint8_t *p = c->pos, *end = c->end;
	const struct cache_slot *cache = c->cache;
	const uint32_t gen1 = c->gen + 1;
	const uint64_t next_change = c->next_change, tick0 = proc->tick0;
	const int64_t mult = proc->mult, off = proc->off;
	struct trace_event *ev0 = ev;
	uint64_t ticks = c->ticks;

	/* p may be NULL before the first chunk: compare lengths, not pointers */
	while (ev < ev_end && end - p >= 8 && *p) {
		uint64_t x, v;
		unsigned len = (unsigned)__builtin_ctz(*p) + 1;
		memcpy(&x, p, 8);
		v = (x & varint_mask[len]) >> len;
		const struct cache_slot *s = &cache[(v >> 2) & 63];
		uint64_t nt = ticks + (v >> 8);
		if ((v & 2) || !s->addr || s->gen != gen1 || nt >= next_change)
			break;
		if (cs)   /* (without call sites, buffer_prepare zeroed it) */
			ev->callsite = 0;
		if (cs && !(v & 1)) {
			/* the entry's CALLSITE record: head byte, varint */
			const uint8_t *q = p + len;
			uint64_t zz;
			if (end - q < 9 || q[0] != CALLSITE_HEAD || !q[1])
				break;
			unsigned l2 = (unsigned)__builtin_ctz(q[1]) + 1;
			memcpy(&zz, q + 1, 8);
			if (l2 < 8)
				zz &= (1ull << (8 * l2)) - 1;
			zz >>= l2;
			uint64_t site = s->addr + (uint64_t)fnt_unzigzag(zz);
			uint64_t bias;
			site_of(c, site, nt, &ev->callsite_file, &bias);
			ev->callsite = site;
			ev->callsite_vaddr = site - bias;
			len += 1 + l2;
		}
		if (ar) {
			/* its ARGS (entry) or RETVAL (exit) record: head byte,
			 * a length of 1 or 2 bytes, the payload; anything
			 * unusual is left to cursor_next */
			const uint8_t *q = p + len;
			ev->payload = NULL;
			ev->payload_len = 0;
			if (end - q < 9)
				break;
			if (q[0] == ((v & 1) ? EXT_HEAD(FNT_EXT_RETVAL) : EXT_HEAD(FNT_EXT_ARGS))) {
				unsigned l2 = (unsigned)__builtin_ctz(q[1] | 0x100) + 1;
				uint64_t pl;
				if (l2 > 2)
					break;
				memcpy(&pl, q + 1, 8);
				pl = (pl & varint_mask[l2]) >> l2;
				if (pl > (uint64_t)(end - q - 1 - l2))
					break;
				ev->payload = q + 1 + l2;
				ev->payload_len = (uint32_t)pl;
				len += 1 + l2 + (unsigned)pl;
			}
		}
		ticks = nt;
		p += len;
		ev->kind = (v & 1) ? TRACE_EXIT : TRACE_ENTRY;
		ev->func = s->func;
		ev->addr = s->addr;
		ev->ns = to_ns_(tick0, mult, off, ticks);
		ev++;
	}
	c->pos = p;
	c->ticks = ticks;
	return (size_t)(ev - ev0);
}

_Static_assert(sizeof(struct trace_event) == 64, "an event is one cache line");

/* a batch buffer, one event per cache line */
static struct trace_event *batch_alloc(size_t n)
{
	struct trace_event *b = aligned_alloc(64, n * sizeof(*b));
	if (!b) {
		fprintf(stderr, "fntrace: out of memory\n");
		exit(1);
	}
	return b;
}

/* Decode up to c->cap events of the cursor's thread into c->buf.
 * Returns how many (0 at the end of the stream).  Runs of common events go
 * through fast_run(); anything else (NEW, EXT, a chunk end, damage, the
 * last bytes of a chunk) through cursor_next, which keeps every check. */
static size_t cursor_fill(struct cursor *c)
{
	struct trace_event *buf = c->buf;
	struct trace_thread *th = c->th;
	const struct trace_process *proc = c->p;
	const int cs = !!(proc->hdr.flags & FNT_FLAG_CALLSITE);
	/* entries and exits may carry ARGS/RETVAL records */
	const int ar = !!(proc->hdr.flags & FNT_FLAG_ARGS);
	size_t n = 0;
	uint64_t max_ns = 0;

	c->i = 0;
	while (n < c->cap) {
		size_t k = ar ? (cs ? fast_run(c, buf + n, buf + c->cap, 1, 1) : fast_run(c, buf + n, buf + c->cap, 0, 1))
			      : (cs ? fast_run(c, buf + n, buf + c->cap, 1, 0) : fast_run(c, buf + n, buf + c->cap, 0, 0));
		if (k) {
			th->events += k;
			th->last_ns = buf[n + k - 1].ns;
			if (th->last_ns > max_ns)   /* times only grow along a fast run */
				max_ns = th->last_ns;
			n += k;
			if (n == c->cap)
				break;
		}
		struct trace_event *ev = &buf[n];
		memset(ev, 0, sizeof(*ev));
		if (!cursor_next(c, ev))
			break;
		if (ev->ns > max_ns)
			max_ns = ev->ns;
		n++;
		/* the rare events (LOST, UNWIND, THREAD_END) end a batch, so a
		 * thread's ended flag and lost count run ahead of the views by
		 * one batch at most */
		if (ev->kind != TRACE_ENTRY && ev->kind != TRACE_EXIT)
			break;
	}
	c->n = n;
	c->max_ns = max_ns;
	return n;
}

static int stream_end(struct cursor *c, trace_batch_fn fn, void *ctx)
{
	struct trace_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = TRACE_STREAM_END;
	ev.thread = c->th;
	ev.ns = c->th->last_ns;
	return fn(ctx, &ev, 1);
}

static void note_end(struct trace *t, const struct trace_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].ns > t->end_ns)
			t->end_ns = ev[i].ns;
}

static int walk_by_thread(struct trace *t, trace_batch_fn fn, void *ctx)
{
	struct cursor *c = malloc(sizeof(*c));
	struct trace_event *buf = batch_alloc(TRACE_BATCH);
	struct walk_cache *wc = calloc(1, sizeof(*wc));
	int ret = 0;
	if (!c || !buf || !wc)
		exit(1);
	for (size_t i = 0; i < t->n_procs && !ret; i++) {
		struct trace_process *p = &t->procs[i];
		uint64_t *changes;
		size_t n_changes, n;
		process_changes(p, &changes, &n_changes);
		for (size_t k = 0; k < p->n_threads && !ret; k++) {
			if (!p->threads[k].selected)
				continue;
			cursor_init(c, &p->threads[k], changes, n_changes, wc, buf, TRACE_BATCH);
			while ((n = cursor_fill(c))) {
				if (c->max_ns > t->end_ns)
					t->end_ns = c->max_ns;
				if ((ret = fn(ctx, buf, n)))
					break;
			}
			if (!ret)
				ret = stream_end(c, fn, ctx);
		}
		free(changes);
	}
	free(wc);
	free(buf);
	free(c);
	return ret;
}

static inline uint64_t head_ns(const struct cursor *c)
{
	return c->buf[c->i].ns;
}

/* min-heap of cursors by their next event's time (kept beside each) */
struct heap_ent {
	uint64_t ns;
	struct cursor *c;
};

static void heap_down(struct heap_ent *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && h[l].ns < h[m].ns)
			m = l;
		if (r < n && h[r].ns < h[m].ns)
			m = r;
		if (m == i)
			return;
		struct heap_ent x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

#define BY_TIME_BATCH0 16

/* Merged in time order.  The thread at the heap's top hands out a run of
 * events at once: every event up to the smaller of its children's next
 * times.  That is the order event-by-event sifting gives (a tie keeps the
 * top where it is), so the merge does not depend on the batch size. */
static int walk_by_time(struct trace *t, trace_batch_fn fn, void *ctx)
{
	size_t n = 0, cap = 0;
	struct heap_ent *heap = NULL;
	uint64_t **changes = calloc(t->n_procs + 1, sizeof(*changes));
	struct walk_cache *wc = calloc(1, sizeof(*wc));
	int ret = 0;
	if (!changes || !wc)
		exit(1);
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		size_t n_changes;
		process_changes(p, &changes[i], &n_changes);
		for (size_t k = 0; k < p->n_threads; k++) {
			if (!p->threads[k].selected)
				continue;
			struct cursor *c = malloc(sizeof(*c));
			struct trace_event *buf = batch_alloc(BY_TIME_BATCH0);
			if (!c || !buf)
				exit(1);
			cursor_init(c, &p->threads[k], changes[i], n_changes, wc, buf, BY_TIME_BATCH0);
			if (!cursor_fill(c)) {
				free(buf);
				free(c);
				continue;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				heap = xrealloc_(heap, cap * sizeof(*heap));
			}
			heap[n++] = (struct heap_ent){ head_ns(c), c };
		}
	}
	for (size_t i = n / 2; i-- > 0;)
		heap_down(heap, n, i);
	while (n) {
		struct cursor *c = heap[0].c;
		uint64_t limit = UINT64_MAX;
		if (n > 1)
			limit = heap[1].ns;
		if (n > 2 && heap[2].ns < limit)
			limit = heap[2].ns;
		size_t first = c->i, j = c->i + 1;   /* the head goes out whatever the limit */
		while (j < c->n && c->buf[j].ns <= limit)
			j++;
		note_end(t, c->buf + c->i, j - c->i);
		if ((ret = fn(ctx, c->buf + c->i, j - c->i)))
			break;
		c->i = j;
		/* a thread that ran alone through its whole batch gets a bigger
		 * one; threads that interleave finely keep small ones (memory
		 * grows with the number of threads) */
		if (c->i == c->n && j - first == c->n && c->cap < TRACE_BATCH) {
			c->cap *= 2;
			free(c->buf);   /* all handed out: nothing to copy */
			c->buf = batch_alloc(c->cap);
			buffer_prepare(c);
		}
		if (c->i == c->n && !cursor_fill(c)) {
			ret = stream_end(c, fn, ctx);
			free(c->buf);
			free(c);
			heap[0] = heap[--n];
			if (ret)
				break;
		} else {
			heap[0].ns = head_ns(c);
		}
		heap_down(heap, n, 0);
	}
	for (size_t i = 0; i < n; i++) {
		free(heap[i].c->buf);
		free(heap[i].c);
	}
	free(heap);
	for (size_t i = 0; i < t->n_procs; i++)
		free(changes[i]);
	free(changes);
	free(wc);
	return ret;
}

int trace_walk_batch(struct trace *t, int by_time, trace_batch_fn fn, void *ctx)
{
	walk_reset(t);
	return by_time ? walk_by_time(t, fn, ctx) : walk_by_thread(t, fn, ctx);
}

struct event_walk {
	trace_event_fn fn;
	void *ctx;
};

/* trace_walk over batches: one call per event, with th->last_ns at the
 * event being handed out as it was when the reader decoded one at a time */
static int each_event(void *ctx, const struct trace_event *ev, size_t n)
{
	struct event_walk *w = ctx;
	struct trace_thread *th = ev->thread;
	uint64_t last = th->last_ns;
	for (size_t i = 0; i < n; i++) {
		int ret;
		th->last_ns = ev[i].kind == TRACE_STREAM_END ? last : ev[i].ns;
		if ((ret = w->fn(w->ctx, &ev[i])))
			return ret;
	}
	th->last_ns = last;
	return 0;
}

int trace_walk(struct trace *t, int by_time, trace_event_fn fn, void *ctx)
{
	struct event_walk w = { fn, ctx };
	return trace_walk_batch(t, by_time, each_event, &w);
}

size_t trace_select_tids(struct trace *t, const uint32_t *tids, size_t n)
{
	size_t matched = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct trace_thread *th = &t->procs[i].threads[k];
			th->selected = 0;
			for (size_t j = 0; j < n; j++)
				if (th->tid == tids[j])
					th->selected = 1;
			matched += th->selected;
		}
	return matched;
}

/* ---- the frames a forked child inherited ---- */

/* The parent's thread that forked th's process: tid fork_tid of the
 * parent pid, in the image (an exec makes another) running at the fork */
static struct trace_thread *fork_parent_thread(struct trace *t, const struct trace_thread *th)
{
	struct trace_thread *found = NULL;
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		if (p == th->proc || p->hdr.pid != th->proc->hdr.ppid)
			continue;
		for (size_t k = 0; k < p->n_threads; k++) {
			struct trace_thread *pt = &p->threads[k];
			size_t avail;
			const struct fnt_chunk_header *ch = pt->n_chunks ? chunk_at(p, pt->chunks[0], &avail) : NULL;
			if (pt->tid == th->fork_tid && ch && ch->base_ticks <= th->fork_ticks)
				found = pt;     /* the latest image that ran before the fork */
		}
	}
	return found;
}

#define INHERIT_LEVELS 64       /* children of children followed at most */

static size_t inherited(struct trace *t, struct trace_thread *th, int level)
{
	struct trace_frame_ref *st = NULL, *prefix_st = NULL;
	size_t n = 0, gone = 0, prefix = 0;
	struct trace_thread *pt;

	if (th->inherited_done || th->start_depth <= 0)
		return th->n_inherited;
	th->inherited_done = 1;
	if (!th->fork_tid || level > INHERIT_LEVELS || !(pt = fork_parent_thread(t, th)))
		return 0;
	/* the parent's open frames at the fork: its events before it, decoded
	 * aside (the walk's own state of that thread is put back after) */
	struct trace_thread saved = *pt;
	uint64_t damaged = pt->proc->damaged_bytes, walked = t->chunks_walked;
	struct cursor *c = malloc(sizeof(*c));
	struct walk_cache *wc = calloc(1, sizeof(*wc));
	struct trace_event ev, one;
	uint64_t *changes;
	size_t n_changes;
	if (!c || !wc)
		exit(1);
	process_changes(pt->proc, &changes, &n_changes);
	cursor_init(c, pt, changes, n_changes, wc, &one, 1);
	while (cursor_next(c, &ev) && c->ticks < th->fork_ticks) {
		if (ev.kind == TRACE_ENTRY) {
			st = grow_(st, n, sizeof(*st));
			st[n++] = (struct trace_frame_ref){ ev.func, ev.addr };
		} else if (ev.kind == TRACE_EXIT) {
			size_t i = n;
			while (i > 0 && st[i - 1].addr != ev.addr)
				i--;
			if (i)
				n = i - 1;
			else if (!n)
				gone++;         /* a frame the parent itself inherited */
		} else if (ev.kind == TRACE_UNWIND) {
			for (uint64_t k = 0; k < ev.count; k++)
				if (n)
					n--;
				else
					gone++;
		}
	}
	chunk_done(c);
	free(changes);
	free(wc);
	free(c);
	uint32_t ftid = pt->fork_tid;
	uint64_t fticks = pt->fork_ticks;
	*pt = saved;
	pt->fork_tid = ftid;            /* (learnt on the way: its first record) */
	pt->fork_ticks = fticks;
	pt->proc->damaged_bytes = damaged;
	t->chunks_walked = walked;
	/* below them, the parent's own inherited frames that are still open */
	prefix = inherited(t, pt, level + 1);
	prefix_st = pt->inherited;
	prefix = prefix > gone ? prefix - gone : 0;
	size_t total = prefix + n, skip = total > (size_t)th->start_depth ? total - (size_t)th->start_depth : 0;
	th->inherited = malloc((total - skip + 1) * sizeof(*th->inherited));
	if (!th->inherited)
		exit(1);
	for (size_t i = skip; i < total; i++)
		th->inherited[th->n_inherited++] = i < prefix ? prefix_st[i] : st[i - prefix];
	free(st);
	return th->n_inherited;
}

size_t trace_inherited(struct trace *t, struct trace_thread *th, const struct trace_frame_ref **out)
{
	size_t n = inherited(t, th, 0);
	*out = th->inherited;
	return n;
}

uint64_t trace_total_events(const struct trace *t)
{
	uint64_t n = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++)
			n += t->procs[i].threads[k].events;
	return n;
}

int trace_has_function_events(const struct trace *t)
{
	return t->n_funcs > 0;
}

static int cmp_argspec(const void *a, const void *b)
{
	const struct trace_argspec *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

const char *trace_argspec(const struct trace_process *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n_argspecs;
	const char *found = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->argspecs[mid].addr < addr) {
			lo = mid + 1;
		} else {
			if (p->argspecs[mid].addr == addr)
				found = p->argspecs[mid].text;
			hi = mid;
		}
	}
	return found;
}

const struct trace_module *trace_module_at(const struct trace_process *p, uint64_t addr, uint64_t ns)
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
	return any && any->unload_ns == UINT64_MAX ? any : NULL;   /* a constructor before its load record */
}

uint64_t trace_ns_to_real(const struct trace *t, uint64_t ns)
{
	return t->t0_real + ns;
}
