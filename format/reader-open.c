/*
 * reader-open.c - opening a trace: find its files, check each header, scan
 * the chunks of every process, replay the module map and the other meta
 * records, and calibrate the clock.  Also what views ask of an open trace
 * (scope names, argument specs) and trace_close.
 *
 * Every length and offset read from a file is checked against the file
 * before use: a corrupt or truncated trace yields warnings and counts of
 * skipped bytes, never a crash.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format/reader-internal.h"
#include "format/safeio.h"

#define MAX_THREADS_PER_PROC (1u << 20)
/* no real stack holds more frames (each takes at least 16 bytes): a chunk
 * header giving a larger call depth is corrupt */
#define MAX_START_DEPTH (1 << 28)
#define MAX_SESSION_SIZE (1u << 20)

void *xrealloc_(void *p, size_t n)
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
void *grow_(void *p, size_t n, size_t size)
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

/* ---- opening ---- */

/* Module files and threads are found through hash tables, not by a scan:
 * a trace may hold hundreds of thousands of module or thread records, and
 * opening it must stay O(n). */
static uint64_t file_key_hash(uint64_t seed, const char *path, const uint8_t *bid, uint8_t bid_len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ seed;
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		h = (h ^ *c) * 0x100000001b3ull;
	for (uint8_t i = 0; i < bid_len; i++)
		h = (h ^ bid[i]) * 0x100000001b3ull;
	return fnt_mix64(h);
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
		size_t j = file_key_hash(t->hash_seed, f->path, f->build_id, f->build_id_len) & (nsize - 1);
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
	for (i = file_key_hash(t->hash_seed, path, bid, bid_len) & mask; t->file_hash[i]; i = (i + 1) & mask) {
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

const struct fnt_chunk_header *chunk_at(const struct trace_process *p, uint64_t idx, size_t *avail)
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

/* Whether chunk idx holds nothing but zeros after its header (none of it
 * written): holes are skipped with lseek, the rest read */
static int chunk_data_zero(const struct trace_process *p, uint64_t idx, size_t avail)
{
	uint64_t off = FNT_HEADER_SIZE + idx * (uint64_t)p->hdr.chunk_size + FNT_CHUNK_HDR_SIZE;
	uint64_t end = off - FNT_CHUNK_HDR_SIZE + avail;
	uint64_t buf[1024];
	while (off < end) {
		size_t n = end - off < sizeof(buf) ? (size_t)(end - off) : sizeof(buf);
		const uint8_t *b = p->map + off;
		if (p->fd >= 0) {
			off_t data = lseek(p->fd, (off_t)off, SEEK_DATA);
			if (data < 0 && errno == ENXIO)
				return 1;
			if (data > 0 && (uint64_t)data >= end)
				return 1;
			if (data > 0 && (uint64_t)data > off) {
				off = (uint64_t)data;
				continue;
			}
			if (pread(p->fd, buf, n, (off_t)off) == (ssize_t)n)
				b = (const uint8_t *)buf;
		}
		for (size_t k = 0; k < n; k++)
			if (b[k])
				return 0;
		off += n;
	}
	return 1;
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
	uint64_t h = file_key_hash(p->trace->hash_seed, path, NULL, 0);
	return (size_t)(fnt_mix64(fnt_mix64(h + bias) + lo) & (p->n_open_bucket - 1));
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
			/* resolved once the whole module map is known (trace_finish_open) */
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
		} else if (type == FNT_META_LIBCALL) {
			size_t k = rlen / sizeof(struct fnt_meta_libcall);
			if (rlen % sizeof(struct fnt_meta_libcall) || !k) {
				warn(t, "'%s': a corrupt library-call record was skipped", p->file);
			} else if (p->n_libcalls + k <= 10000000) {
				p->libcalls = xrealloc_(p->libcalls, (p->n_libcalls + k) * sizeof(*p->libcalls));
				memcpy(p->libcalls + p->n_libcalls, r, k * sizeof(*p->libcalls));
				p->n_libcalls += k;
			}
		} else if (type == FNT_META_STACK_MOVED) {
			struct fnt_meta_stack_moved mm;
			if (rlen < sizeof(mm) || p->n_moves >= 10000000) {
				warn(t, "'%s': a corrupt stack-moved record was skipped", p->file);
			} else {
				memcpy(&mm, r, sizeof(mm));
				p->moves = grow_(p->moves, p->n_moves, sizeof(*p->moves));
				p->moves[p->n_moves++] = (struct trace_stack_move){
					.ticks = mm.ticks, .stack = mm.stack, .from_stack = mm.from_stack,
					.from_serial = mm.from,
					.to_serial = mm.to, .frames = mm.frames,
				};
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
				a->shared = 0;
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

/* a STACK_MOVED record's threads, by serial; a record naming a thread
 * the file does not have, or one thread twice, or an impossible number of
 * calls, is dropped (with a warning) */
static void moves_resolve(struct trace_process *p)
{
	size_t k = 0, bad = 0;
	for (size_t i = 0; i < p->n_moves; i++) {
		struct trace_stack_move *m = &p->moves[i];
		uint32_t a = m->from_serial < p->n_thread_index ? p->thread_index[m->from_serial] : 0;
		uint32_t b = m->to_serial < p->n_thread_index ? p->thread_index[m->to_serial] : 0;
		if (!a || !b || a == b || m->frames > MAX_START_DEPTH) {
			bad++;
			continue;
		}
		m->from = &p->threads[a - 1];
		m->to = &p->threads[b - 1];
		p->moves[k++] = *m;
	}
	p->n_moves = k;
	if (bad)
		warn(p->trace, "'%s': %zu stack-moved record(s) naming threads the file does not hold were skipped",
		     p->file, bad);
}

static int cmp_move(const void *a, const void *b)
{
	const struct trace_stack_move *x = a, *y = b;
	return x->ns < y->ns ? -1 : x->ns > y->ns ? 1 : x->ticks < y->ticks ? -1 : x->ticks > y->ticks;
}

/* once the clock is known: the header's recording switches (format.h) */
static void switches_index(struct trace_process *p)
{
	uint64_t last = p->hdr.last_switch;
	p->first_off_ns = p->hdr.first_off_ticks ? ticks_ns(p, p->hdr.first_off_ticks) : UINT64_MAX;
	p->last_switch_ns = last ? ticks_ns(p, last >> 1) : UINT64_MAX;
	p->last_off_ns = last && !(last & 1) ? p->last_switch_ns : UINT64_MAX;
}

int trace_recording_switched_since(const struct trace_process *p, uint64_t ns)
{
	return p->last_switch_ns != UINT64_MAX && p->last_switch_ns >= ns;
}

int trace_recording_was_off(const struct trace_process *p, uint64_t ns)
{
	return ns >= p->first_off_ns;
}

int trace_recording_off_at_end(const struct trace_process *p, uint64_t *since_ns)
{
	*since_ns = p->last_off_ns;
	return p->last_off_ns != UINT64_MAX;
}

/* once the clock is known: the moves by time, and each thread's own */
static void moves_index(struct trace_process *p)
{
	if (!p->n_moves)
		return;
	for (size_t i = 0; i < p->n_moves; i++)
		p->moves[i].ns = ticks_ns(p, p->moves[i].ticks);
	qsort(p->moves, p->n_moves, sizeof(*p->moves), cmp_move);
	for (size_t i = 0; i < p->n_moves; i++) {
		struct trace_stack_move *m = &p->moves[i];
		m->from->moves_out = grow_(m->from->moves_out, m->from->n_moves_out, sizeof(*m->from->moves_out));
		m->from->moves_out[m->from->n_moves_out++] = m;
		m->to->moves_in = grow_(m->to->moves_in, m->to->n_moves_in, sizeof(*m->to->moves_in));
		m->to->moves_in[m->to->n_moves_in++] = m;
	}
}

static void process_scan(struct trace_process *p)
{
	struct seq_item *meta = NULL;
	size_t n_meta = 0;

	clock_point(p, p->hdr.cal1_ticks, p->hdr.cal1_mono);
	if (p->hdr.end_flags & (FNT_END_EXIT | FNT_END_EXIT_CALL))
		clock_point(p, p->hdr.end_ticks, p->hdr.end_mono);
	for (uint64_t i = 0; i < p->n_chunks; i++) {
		size_t avail = 0;
		struct fnt_chunk_header hbuf;
		const struct fnt_chunk_header *ch = chunk_header(p, i, &hbuf, &avail);
		if (!ch)
			break;
		if (ch->magic != FNT_CHUNK_MAGIC) {
			if (p->hdr.flags & FNT_FLAG_RING) {
				/* a zero magic: a chunk being rewritten, or unused */
				if (ch->magic)
					p->damaged_chunks++;
				else if (!ch->type)
					i = skip_hole(p, i);
				continue;
			}
			/* Without its magic a chunk holds no event: one never
			 * begun (handed out as the process ended, or prepared
			 * ahead and not needed) is all zeros, one being begun
			 * when it ended has a header and zeros after it (exit()
			 * ends the other threads wherever they are).  Anything
			 * else is damage. */
			if (ch->magic || !chunk_data_zero(p, i, avail)) {
				p->damaged_chunks++;
			} else if (!ch->type) {
				uint64_t last = skip_hole(p, i);
				p->unwritten_chunks += last - i + 1;
				i = last;
			}
			continue;
		}
		p->sealed_end = i + 1;
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
	moves_resolve(p);
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
			th->start_below = p->hdr.version >= 3 ? below_of(ch) : 0;   /* (reserved before) */
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
		} else {
			p->clock_fit = 1;
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
	if (h->version < FNT_FORMAT_OLDEST || h->version > FNT_FORMAT_VERSION) {
		snprintf(why, len, "format version %u is not supported (this fntrace reads versions %u to %u)",
			 h->version, FNT_FORMAT_OLDEST, FNT_FORMAT_VERSION);
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

/* A file cut short: inside a chunk, or at a chunk boundary before the end
 * the header knows of */
static void cut_warn(struct trace *t, const struct trace_process *p, const char *name)
{
	uint64_t body = p->size - FNT_HEADER_SIZE, part = body % p->hdr.chunk_size;
	/* the chunks that had their blocks, when the header keeps that and no
	 * chunk with its magic lies past them (each is counted before it is
	 * begun); else the chunk numbers handed out, more than that when
	 * threads died between taking a number and reserving its chunk */
	int reserved = (p->hdr.flags & FNT_FLAG_RESERVED) && p->sealed_end <= p->hdr.chunks_reserved;
	uint64_t want = reserved ? p->hdr.chunks_reserved : p->hdr.next_chunk;
	/* (a part of a chunk past the ones reserved: a reservation written as
	 * zeros, where fallocate is not had, that the process's end stopped;
	 * nothing was written in it) */
	if (part && !(reserved && body / p->hdr.chunk_size >= want))
		warn(t, "'%s': file is truncated inside chunk %llu (%llu of %u bytes present); "
		     "events up to the cut are kept", name, (unsigned long long)(body / p->hdr.chunk_size),
		     (unsigned long long)part, p->hdr.chunk_size);
	if (!part && want > p->n_chunks && want < (1ull << 40) && !p->hdr.lost_nospace)
		warn(t, "'%s': file is truncated: %llu of %llu chunks present; events up to the cut are kept",
		     name, (unsigned long long)p->n_chunks, (unsigned long long)want);
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
	}
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
	cut_warn(t, p, name);
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
		if (errno != ENOENT) {
			t->has_session = 1;
			warn(t, "'%s': %s; ignored", path, why);
		}
		return;
	}
	t->has_session = 1;
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!strncmp(line, "command=", 8)) {
			free(t->session_command);
			t->session_command = xstrdup_(line + 8);
		} else if (!strncmp(line, "record_options=", 15)) {
			free(t->session_options);
			t->session_options = xstrdup_(line + 15);
		} else if (!strncmp(line, "pid=", 4)) {
			t->session_pid = (uint32_t)strtoul(line + 4, NULL, 10);
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

/* file names in pid order, "9998-0.fnt" before "10001-0.fnt": the order
 * of the warnings about them (the processes are ordered by when they were
 * made once open, cmp_start) */
static int cmp_str(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_argspec(const void *a, const void *b);
static void argspec_hash_build(struct trace_process *p);
static void libcalls_sort(struct trace_process *p);

static int cmp_pid_exec(const void *a, const void *b)
{
	const struct trace_process *x = *(struct trace_process *const *)a, *y = *(struct trace_process *const *)b;
	if (x->hdr.pid != y->hdr.pid)
		return x->hdr.pid < y->hdr.pid ? -1 : 1;
	return x->hdr.exec_seq < y->hdr.exec_seq ? -1 : x->hdr.exec_seq > y->hdr.exec_seq;
}

/* processes in the order they were made, then by pid and exec: a child
 * after its parent also when its pid is lower (pids wrapped) */
static int cmp_start(const void *a, const void *b)
{
	const struct trace_process *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->hdr.pid != y->hdr.pid)
		return x->hdr.pid < y->hdr.pid ? -1 : 1;
	if (x->hdr.exec_seq != y->hdr.exec_seq)
		return x->hdr.exec_seq < y->hdr.exec_seq ? -1 : 1;
	return strverscmp(x->file, y->file);
}

/* ticks -> trace-relative ns at open, with the given fit, clamped to 0 and
 * UINT64_MAX (a corrupt record's ticks may lie anywhere) */
static uint64_t open_ns(const struct trace_process *p, uint64_t ticks, double scale)
{
	double ns = ((double)(int64_t)(ticks - p->tick0)) * scale + (double)p->off;
	return ns < 0 ? 0 : ns >= 0x1p64 ? UINT64_MAX : (uint64_t)ns;
}

static int cmp_cal(const void *a, const void *b)
{
	const struct trace_process *x = *(struct trace_process *const *)a, *y = *(struct trace_process *const *)b;
	if (x->hdr.cal0_ticks != y->hdr.cal0_ticks)
		return x->hdr.cal0_ticks < y->hdr.cal0_ticks ? -1 : 1;
	if (x->hdr.cal0_mono != y->hdr.cal0_mono)
		return x->hdr.cal0_mono < y->hdr.cal0_mono ? -1 : 1;
	if (x->clock_fit != y->clock_fit)   /* a usable fit first, the widest of them */
		return x->clock_fit ? -1 : 1;
	return x->max_ticks > y->max_ticks ? -1 : x->max_ticks < y->max_ticks;
}

/* When each process was made (start_ns): its fork (FNT_RES_FORK_TICKS),
 * or its first clock sample.  A forked child shares its parent's samples;
 * the starts of a family convert with one fit, the widest usable one (a
 * member whose samples are corrupt is not the family's), so that a child
 * forked a moment after its parent, late in a long run, cannot come before
 * it by the difference of their own fits. */
static void start_times(struct trace *t)
{
	struct trace_process **ix = xrealloc_(NULL, t->n_procs * sizeof(*ix));
	for (size_t i = 0; i < t->n_procs; i++)
		ix[i] = &t->procs[i];
	qsort(ix, t->n_procs, sizeof(*ix), cmp_cal);
	for (size_t i = 0, first = 0; i < t->n_procs; i++) {
		struct trace_process *p = ix[i];
		if (ix[first]->hdr.cal0_ticks != p->hdr.cal0_ticks || ix[first]->hdr.cal0_mono != p->hdr.cal0_mono)
			first = i;      /* another family: its widest fit comes first */
		if (!p->hdr.reserved[FNT_RES_FORK_TICKS]) {
			p->start_ns = (uint64_t)p->off;
			continue;
		}
		p->start_ns = open_ns(p, p->hdr.reserved[FNT_RES_FORK_TICKS], ix[first]->scale);
	}
	free(ix);
}

static void scope_hash_build(struct trace *t);

/* does a `fntrace record` still hold the directory: its .lock locked,
 * and the pid it wrote there alive? */
static int recorder_running(const struct trace *t)
{
	char path[4200], buf[32];
	snprintf(path, sizeof(path), "%s/.lock", t->dir);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), held;
	ssize_t n;
	if (fd < 0)
		return 0;
	held = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	n = held ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		long pid = strtol(buf, NULL, 10);
		if (pid > 0 && kill((pid_t)pid, 0) && errno == ESRCH)
			held = 0;
	}
	return held;
}

/* A recording that record did not finish, of a process that did not exit
 * either: record copies the program's chunks out of its ring, and the two
 * were killed together (a SIGKILL to the whole process group: timeout -s
 * KILL, kill(0, ...), a service manager).  Chunks handed out and never
 * copied are in the file as zeros: their events are lost, and nothing
 * else counts them.  The chunks the process was writing had been copied
 * as far as record's last copy, about 50 ms before: what came after is
 * lost too, and cannot be counted.  (A finished recording has neither; a
 * live one has them as it goes; a process that never used the ring,
 * --no-drain, a flight recorder, a file size limit, keeps every event in
 * its own mapping of its file.) */
static void unwritten_warn(struct trace *t)
{
	if (!t->dir || !t->session_command || t->session_has_status || recorder_running(t))
		return;
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		int ended = p->hdr.end_flags & (FNT_END_EXIT | FNT_END_EXIT_CALL | FNT_END_EXEC);
		t->unwritten_lost += p->unwritten_chunks;
		p->copy_cut = !!(p->hdr.flags & FNT_FLAG_DRAINED);
		/* record copies full chunks, and every 50 ms the ones being
		 * written as far as they are: a thread's chunk never copied may
		 * lie between two that were.  That hole in its sequence is one
		 * of these chunks, said once, here */
		p->missing_chunks -= p->missing_chunks < p->unwritten_chunks ? p->missing_chunks : p->unwritten_chunks;
		if (!p->unwritten_chunks && !ended && (p->hdr.flags & FNT_FLAG_DRAINED)) {
			t->tail_unknown++;
			warn(t, "'%s': fntrace record did not finish, and this process did not exit (both killed at "
			     "once, as a kill of the whole process group does): the events it wrote after record's "
			     "last copy of its buffers (about 50 ms before) may be missing", p->file);
		}
		if (p->unwritten_chunks)
			warn(t, "'%s': %llu chunk%s of %u KiB handed out to the program %s not in the file: fntrace "
			     "record did not finish (killed along with the program, as a kill of the whole process "
			     "group does), and the events the program wrote in %s are lost", p->file,
			     (unsigned long long)p->unwritten_chunks, p->unwritten_chunks == 1 ? "" : "s",
			     p->hdr.chunk_size / 1024, p->unwritten_chunks == 1 ? "is" : "are",
			     p->unwritten_chunks == 1 ? "it" : "them");
	}
}

static void trace_finish_open(struct trace *t)
{
	unwritten_warn(t);
	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i].n_argspecs > 1)
			qsort(t->procs[i].argspecs, t->procs[i].n_argspecs, sizeof(*t->procs[i].argspecs), cmp_argspec);
	for (size_t i = 0; i < t->n_procs; i++) {
		argspec_hash_build(&t->procs[i]);
		libcalls_sort(&t->procs[i]);
		for (size_t k = 0; k < t->procs[i].n_threads; k++)
			memcpy(t->procs[i].threads[k].open_name, t->procs[i].threads[k].name, sizeof(t->procs[i].threads[k].name));
	}
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
	 * pid in its pid namespace ended in exec, unless it exited cleanly or
	 * was still running when the next one started (a pid used again after
	 * a wrap; the same pid in another pid namespace, when the files do not
	 * say which).  The files of two namespaces' pid 1 interleave; one that
	 * could not read its namespace (no /proc) goes with either. */
	if (t->n_procs > 1) {
		struct trace_process **by_pid = xrealloc_(NULL, t->n_procs * sizeof(*by_pid));
		for (size_t i = 0; i < t->n_procs; i++)
			by_pid[i] = &t->procs[i];
		qsort(by_pid, t->n_procs, sizeof(*by_pid), cmp_pid_exec);
		for (size_t i = 0; i + 1 < t->n_procs; i++) {
			struct trace_process *a = by_pid[i];
			if (a->hdr.end_flags & (FNT_END_EXIT | FNT_END_EXIT_CALL))
				continue;
			for (size_t j = i + 1; j < t->n_procs && j <= i + 64 && by_pid[j]->hdr.pid == a->hdr.pid; j++) {
				struct trace_process *b = by_pid[j];
				if (b->after_exec || !trace_same_pid_ns(a, b))
					continue;
				if (b->hdr.exec_seq > a->hdr.exec_seq && b->hdr.cal0_mono >= a->max_mono) {
					a->exec_replaced = 1;
					b->after_exec = 1;
				}
				break;
			}
		}
		free(by_pid);
	}
	/* an image that called exec says so (its successor may have left no
	 * file: one that records nothing removes it) */
	for (size_t i = 0; i < t->n_procs; i++)
		if ((t->procs[i].hdr.end_flags & FNT_END_EXEC) &&
		    !(t->procs[i].hdr.end_flags & (FNT_END_EXIT | FNT_END_EXIT_CALL)))
			t->procs[i].exec_replaced = 1;
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		p->off = (int64_t)(p->hdr.cal0_mono - t->t0_mono);
		for (size_t k = 0; k < p->n_modules; k++) {
			struct trace_module *m = &p->modules[k];
			m->load_ns = m->at_start ? 0 : open_ns(p, m->load_ticks, p->scale);
			m->unload_ns = m->unload_ticks == UINT64_MAX ? UINT64_MAX : open_ns(p, m->unload_ticks, p->scale);
		}
		if (p->damaged_chunks)
			warn(t, "'%s': %llu chunk(s) with a corrupt header skipped", p->file,
			     (unsigned long long)p->damaged_chunks);
		for (size_t k = 0; k < p->n_threads; k++) {
			struct trace_thread *th = &p->threads[k];
			th->history_ns = open_ns(p, th->history_ticks, p->scale);
		}
		/* the module map is complete, in ticks and ns: index it, then
		 * give each named scope the module its address lay in */
		module_index_build(p);
		for (size_t k = 0; k < p->n_scope_ticks; k++) {
			struct trace_scope *sc = &t->scopes[p->scope_ticks[k].scope];
			const struct trace_module *m = module_at(p, sc->vaddr, p->scope_ticks[k].ticks);
			if (m) {
				sc->file = m->file;
				sc->vaddr -= m->bias;
			}
		}
		free(p->scope_ticks);
		p->scope_ticks = NULL;
		p->n_scope_ticks = 0;
		moves_index(p);
		switches_index(p);
	}
	if (t->n_procs > 1) {
		start_times(t);
		qsort(t->procs, t->n_procs, sizeof(*t->procs), cmp_start);
		for (size_t i = 0; i < t->n_procs; i++)
			for (size_t k = 0; k < t->procs[i].n_threads; k++)
				t->procs[i].threads[k].proc = &t->procs[i];
	}
	scope_hash_build(t);
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
		size_t j = func_key_hash(t->hash_seed, sc->file, sc->vaddr) & mask;
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
	for (size_t j = func_key_hash(t->hash_seed, file, vaddr) & mask; t->scope_hash[j]; j = (j + 1) & mask) {
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
		int e = errno;
		struct stat u;
		const char *slash = strrchr(dir, '/');
		int uftrace = e == ENOENT && !strcmp(slash ? slash + 1 : dir, "fntrace.data") && !slash &&
			      !stat("uftrace.data", &u) && S_ISDIR(u.st_mode);
		snprintf(err, errlen, "cannot open '%s': %s%s", dir, strerror(e),
			 uftrace ? " (this directory has uftrace's 'uftrace.data', which 'uftrace replay' reads: "
				   "run 'fntrace record' first)" :
			 e == ENOENT ? " (run 'fntrace record' first, or name the trace with -d)" : "");
		return -1;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		exit(1);
	t->hash_seed = fnt_hash_seed();
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
		if (!n_names && !t->has_session) {
			/* (a recording that has not written its first file yet has
			 * its session file already) */
			snprintf(err, errlen, "'%s' is not a trace directory (it has no .fnt file and no session "
				 "file; 'fntrace record -d DIR' writes one)", dir);
			trace_close(t);
			return -1;
		}
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
	t->hash_seed = fnt_hash_seed();
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
			if (!t->procs[0].argspecs[i].shared)
				free(t->procs[0].argspecs[i].text);
		free(t->procs[0].argspecs);
		free(t->procs[0].libcalls);
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
			free(p->threads[k].moves_out);
			free(p->threads[k].moves_in);
		}
		free(p->threads);
		free(p->thread_index);
		free(p->open_bucket);
		free(p->open_next);
		free(p->modules);
		module_index_free(p);
		free(p->scope_ticks);
		free(p->filters);
		for (size_t k = 0; k < p->n_untraced; k++)
			free(p->untraced[k].path);
		free(p->untraced);
		for (size_t k = 0; k < p->n_patches; k++)
			free(p->patches[k].name);
		free(p->patches);
		for (size_t k = 0; k < p->n_argspecs; k++)
			if (!p->argspecs[k].shared)
				free(p->argspecs[k].text);
		free(p->argspecs);
		free(p->argspec_hash);
		free(p->libcalls);
		free(p->moves);
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
	free(t->session_options);
	free(t->dir);
	free(t);
}

static int cmp_argspec(const void *a, const void *b)
{
	const struct trace_argspec *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* seeded (format/safeio.h): addresses come from the trace, which must not
 * be able to put them all on one chain */
static inline size_t argspec_slot(const struct trace_process *p, uint64_t addr)
{
	return (size_t)(fnt_mix64(addr ^ p->trace->hash_seed) >> p->argspec_shift);
}

/* Equal texts made one, the first entry's: the views cache what they parse
 * of a spec by its text's address (tool/args.c), and a glob gives every
 * function it names the same text (`-A '*@arg1'`: thousands).  A seeded
 * hash, and at most 64 probes an entry (past them an entry keeps its own
 * text), so that a trace cannot make this quadratic. */
static void argspec_share(struct trace_process *p, unsigned bits)
{
	size_t mask = ((size_t)1 << bits) - 1;
	uint32_t *h = xrealloc_(NULL, (mask + 1) * sizeof(*h));
	memset(h, 0, (mask + 1) * sizeof(*h));
	for (size_t i = 0; i < p->n_argspecs; i++) {
		struct trace_argspec *a = &p->argspecs[i];
		uint64_t x = p->trace->hash_seed;
		for (const unsigned char *c = (const unsigned char *)a->text; *c; c++)
			x = fnt_mix64(x ^ *c);
		size_t k = (size_t)x & mask;
		for (int probe = 0; probe < 64; probe++, k = (k + 1) & mask) {
			if (!h[k]) {
				h[k] = (uint32_t)(i + 1);
				break;
			}
			struct trace_argspec *b = &p->argspecs[h[k] - 1];
			if (!strcmp(a->text, b->text)) {
				free(a->text);
				a->text = b->text;
				a->shared = 1;
				break;
			}
		}
	}
	free(h);
}

/* Every view that shows values looks a function's spec up at each of its
 * events: a hash of the sorted entries, each address once, at its first
 * entry (the one a binary search for the leftmost match finds). */
static void argspec_hash_build(struct trace_process *p)
{
	unsigned bits = 4;
	if (!p->n_argspecs)
		return;
	while ((1ull << bits) < 2 * (uint64_t)p->n_argspecs)
		bits++;
	argspec_share(p, bits);
	p->argspec_shift = 64 - bits;
	p->argspec_hash = xrealloc_(NULL, ((size_t)1 << bits) * sizeof(*p->argspec_hash));
	memset(p->argspec_hash, 0, ((size_t)1 << bits) * sizeof(*p->argspec_hash));
	size_t mask = ((size_t)1 << bits) - 1;
	for (size_t i = 0; i < p->n_argspecs; i++) {
		if (i && p->argspecs[i].addr == p->argspecs[i - 1].addr)
			continue;
		size_t h = argspec_slot(p, p->argspecs[i].addr);
		while (p->argspec_hash[h])
			h = (h + 1) & mask;
		p->argspec_hash[h] = (uint32_t)(i + 1);
	}
}

const char *trace_argspec(const struct trace_process *p, uint64_t addr)
{
	if (!p->argspec_hash)
		return NULL;
	size_t mask = ((size_t)1 << (64 - p->argspec_shift)) - 1;
	for (size_t h = argspec_slot(p, addr);; h = (h + 1) & mask) {
		uint32_t k = p->argspec_hash[h];
		if (!k)
			return NULL;
		if (p->argspecs[k - 1].addr == addr)
			return p->argspecs[k - 1].text;
	}
}

/* by slot, and a slot's records in the order written (a stable sort: merge
 * by index), so that the last one found is the latest */
static void libcalls_sort(struct trace_process *p)
{
	size_t n = p->n_libcalls;
	if (n < 2)
		return;
	struct fnt_meta_libcall *tmp = xrealloc_(NULL, n * sizeof(*tmp)), *a = p->libcalls;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = a[j].slot < a[i].slot ? a[j++] : a[i++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
		}
		memcpy(a, tmp, n * sizeof(*a));
	}
	free(tmp);
}

uint64_t trace_libcall_target(const struct trace_process *p, uint64_t slot)
{
	size_t lo = 0, hi = p->n_libcalls;
	while (lo < hi) {               /* the first past slot */
		size_t mid = lo + (hi - lo) / 2;
		if (p->libcalls[mid].slot <= slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && p->libcalls[lo - 1].slot == slot ? p->libcalls[lo - 1].target : 0;
}

uint64_t trace_ns_to_real(const struct trace *t, uint64_t ns)
{
	return t->t0_real + ns;
}
