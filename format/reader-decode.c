/*
 * reader-decode.c - decoding one thread's events: a cursor walks the
 * thread's chunks in sequence order and turns each record into a struct
 * trace_event, resolving addresses to functions against the module map.
 * cursor_fill() decodes a batch: runs of common events through fast_run(),
 * everything else through cursor_next(), which keeps every check.
 *
 * Chunks decode independently (each starts a fresh timestamp base and
 * address cache), so damage in one chunk loses at most the rest of that
 * chunk.  Decoding is streaming: memory is the file mappings (paged in and
 * out by the kernel) plus a cursor per thread, whatever the number of events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "format/reader-internal.h"

#define likely_(x) __builtin_expect(!!(x), 1)

/* ---- functions ---- */

uint64_t func_key_hash(uint64_t seed, uint32_t file, uint64_t vaddr)
{
	return fnt_mix64(fnt_mix64(vaddr ^ seed) + file);
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
			size_t j = func_key_hash(t->hash_seed, t->funcs[k].file, t->funcs[k].vaddr) & (nsize - 1);
			while (nh[j])
				j = (j + 1) & (nsize - 1);
			nh[j] = (uint32_t)k + 1;
		}
		free(t->func_hash);
		t->func_hash = nh;
		t->func_hash_size = nsize;
	}
	mask = t->func_hash_size - 1;
	i = func_key_hash(t->hash_seed, file, vaddr) & mask;
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

/* the id of a function that has one already (an entry was decoded), else
 * UINT32_MAX */
static uint32_t func_find(const struct trace *t, uint32_t file, uint64_t vaddr)
{
	if (!t->func_hash_size)
		return UINT32_MAX;
	size_t mask = t->func_hash_size - 1, i = func_key_hash(t->hash_seed, file, vaddr) & mask;
	while (t->func_hash[i]) {
		const struct trace_func *f = &t->funcs[t->func_hash[i] - 1];
		if (f->file == file && f->vaddr == vaddr)
			return t->func_hash[i] - 1;
		i = (i + 1) & mask;
	}
	return UINT32_MAX;
}

static uint32_t resolve(struct trace_process *p, uint64_t addr, uint64_t ticks)
{
	const struct trace_module *m = module_at(p, addr, ticks);
	if (!m)
		return func_id(p->trace, TRACE_NO_FILE, addr);
	return func_id(p->trace, m->file, addr - m->bias);
}

/* ---- decoding ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void process_changes(struct trace_process *p, uint64_t **out, size_t *n)
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
	int ev;
	size_t len;
	/* the record that the copy's cut split: not damage, the rest of it
	 * was never written (cursor_chunk) */
	if (c->cut && at < c->cut && (len = fnt_record_len(at, c->data_end, &ev)) && at + len > c->cut) {
		c->pos = c->end;
		return;
	}
	uint64_t n = nonzero_rest(at, c->end);
	if (n)
		c->p->damaged_bytes += n;
	c->pos = c->end;
}

/* Drop the whole pages of [base, end) of p's mapping from this process
 * (they stay in the page cache); never a caller's buffer. */
static void drop_pages(const struct trace_process *p, const uint8_t *base, const uint8_t *end)
{
	uintptr_t a = (uintptr_t)base & ~(uintptr_t)4095, e = (uintptr_t)end & ~(uintptr_t)4095;
	if (e > a && !p->trace->borrowed)
		madvise((void *)a, e - a, MADV_DONTNEED);
}

/* Drop a chunk this thread has done with, and the pages around it: a
 * fault maps its neighbours too (fault-around, large folios), and in a
 * file whose threads' chunks interleave those belong to other threads'
 * chunks, which stayed mapped when their own walk had been and gone
 * (report on bench's mt with values: 27 MB of the file mapped at the end,
 * growing with the number of chunks).  Never the chunk the thread decodes
 * now; another thread's live pages that go come back at their next read. */
#define FRINGE (256u * 1024u)
static void drop_chunk(const struct trace_thread *th, const uint8_t *lo, const uint8_t *hi)
{
	const struct trace_process *p = th->proc;
	uintptr_t start = (uintptr_t)p->map + FNT_HEADER_SIZE, end = (uintptr_t)p->map + p->size;
	uintptr_t a = (uintptr_t)lo, e = (uintptr_t)hi;
	a = a - start > FRINGE ? a - FRINGE : start;
	e = end - e > FRINGE ? e + FRINGE : end;
	uintptr_t llo = (uintptr_t)th->live_lo, lhi = (uintptr_t)th->live_hi;
	if (llo && lhi > a && llo < e) {
		if (llo >= (uintptr_t)hi)
			e = llo;
		else if (lhi <= (uintptr_t)lo)
			a = lhi;
	}
	drop_pages(p, (const uint8_t *)a, (const uint8_t *)e);
}

/* Done with the current chunk.  Its pages go (so that decoding memory
 * does not grow with the trace) when the next batch is decoded: the views
 * may still read the payloads of the batch that holds its last events. */
void chunk_done(struct cursor *c)
{
	struct trace_thread *th = c->th;
	if (!c->chunk_base || !c->p->size)
		return;
	if (th->left_lo)            /* (a batch spans one chunk's end at most) */
		drop_chunk(th, th->left_lo, th->left_hi);
	th->left_lo = c->chunk_base;
	th->left_hi = c->end;
	c->chunk_base = NULL;
	th->live_lo = th->live_hi = NULL;
	if (th->drop_lo) {
		drop_chunk(th, th->drop_lo, th->drop_hi);
		th->drop_lo = th->drop_hi = NULL;
	}
}

/* Drop the chunks a thread's walk left and still holds (at each batch, at
 * the end of a walk) */
void thread_release(struct trace_thread *th)
{
	if (th->left_lo)
		drop_chunk(th, th->left_lo, th->left_hi);
	if (th->drop_lo)
		drop_chunk(th, th->drop_lo, th->drop_hi);
	th->left_lo = th->left_hi = th->drop_lo = th->drop_hi = NULL;
}

/* Drop every page of the thread's walk, the chunk it decodes included
 * (read again from the page cache when its turn comes): a walk by time
 * decodes each thread's first batch before handing out any, and with
 * hundreds of threads those chunks alone took tens of MB */
void thread_park(struct trace_thread *th)
{
	const uint8_t *lo = th->live_lo, *hi = th->live_hi;
	thread_release(th);
	if (!lo)
		return;
	th->live_lo = th->live_hi = NULL;     /* with its neighbours this time */
	drop_chunk(th, lo, hi);
	th->live_lo = lo;
	th->live_hi = hi;
}

/* The kernel maps a fault's neighbours with it (fault-around, large
 * folios: 256 KiB here), so the whole chunk that holds the payload goes,
 * as chunk_done dropped it; it is never the chunk being decoded nor the
 * one left in the batch being handed out.  Not at once: the next reads
 * are likely in the same chunk (the deep calls that began in it), each of
 * which faulted it back and dropped it again, a madvise each (55,195 in a
 * chrome export of fib 33 with values, 2,683 now).  It goes when another
 * left chunk is read, or when the walk leaves the chunk it decodes. */
void trace_payload_done(struct trace_thread *th, const uint8_t *payload, size_t len)
{
	const struct trace_process *p = th->proc;
	if (!payload || !len || p->trace->borrowed || !p->size || !p->hdr.chunk_size ||
	    (payload + len > th->live_lo && payload < th->live_hi) ||
	    (payload + len > th->left_lo && payload < th->left_hi) || payload < p->map + FNT_HEADER_SIZE ||
	    payload + len > p->map + p->size)
		return;
	uint64_t idx = (uint64_t)(payload - p->map - FNT_HEADER_SIZE) / p->hdr.chunk_size;
	size_t avail;
	const uint8_t *ch = (const uint8_t *)chunk_at(p, idx, &avail);
	if (!ch || payload + len > ch + avail)        /* (a payload never spans chunks) */
		return;
	if (ch == th->drop_lo)
		return;
	if (th->drop_lo)
		drop_chunk(th, th->drop_lo, th->drop_hi);
	th->drop_lo = ch;
	th->drop_hi = ch + avail;
}

/* A recording whose record was killed (group-kill): record copies the
 * program's chunks into the file with pwrite, and the kernel ends a write
 * between two pages when a fatal signal is pending, so a copy may stop
 * mid-record at a page boundary of the file, with zeros after it.  The
 * chunk's data then ends at the page boundary after its last non-zero
 * byte: a record that runs past it is the one the cut split (its head
 * read alone, `96 00` for `96 2a`, was damage, or worse, another event),
 * and chunk_damage leaves it out without counting it as damage. */
static void copy_cut_at(struct cursor *c)
{
	const uint8_t *e = c->end, *map = c->p->map;
	while (e > c->pos && !e[-1])
		e--;
	const uint8_t *cut = map + (((size_t)(e - map) + 4095) & ~(size_t)4095);
	if (e == c->pos || cut >= c->end)
		return;
	c->cut = cut;
	c->data_end = c->end;
	c->end = cut;
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
		/* a chunk of the thread missing before this one (seq order,
		 * reader-open.c; a ring keeps only its last run of chunks) */
		if (c->have_seq && ch->seq > c->seq + 1) {
			c->gap = ch->seq - c->seq - 1;
			c->gap_depth = ch->depth;
			c->gap_below = c->p->hdr.version >= 3 ? below_of(ch) : 0;
		}
		c->seq = ch->seq;
		c->have_seq = 1;
		c->chunk_base = (const uint8_t *)ch;
		c->pos = (const uint8_t *)ch + FNT_CHUNK_HDR_SIZE;
		c->end = (const uint8_t *)ch + avail;
		c->cut = c->data_end = NULL;
		if (c->p->copy_cut)
			copy_cut_at(c);
		c->th->live_lo = c->chunk_base;
		c->th->live_hi = c->end;
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

uint64_t ticks_ns(const struct trace_process *p, uint64_t ticks)
{
	return to_ns(p, ticks);
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

/* An EXT record of type ext (delta 0: a 1-byte head) at p, with a varint
 * zigzag(addr - base) body, as CALLSITE follows its entry and LANDING its
 * UNWIND_TO: the bytes it takes and *addr, or 0 when there is none */
static int record_after(const uint8_t *p, const uint8_t *end, unsigned ext, uint64_t base, uint64_t *addr)
{
	uint64_t h = 0, zz = 0;
	int n;
	if (get_varint(p, end, &h) != 1 || h != ((uint64_t)ext << 2 | FNT_K_EXT) || (n = get_varint(p + 1, end, &zz)) <= 0)
		return 0;
	*addr = base + (uint64_t)fnt_unzigzag(zz);
	return 1 + n;
}

static void callsite_resolve(struct cursor *c, struct trace_event *ev)
{
	uint64_t bias;
	site_of(c, ev->callsite, c->ticks, &ev->callsite_file, &bias);
	ev->callsite_vaddr = ev->callsite - bias;
}

/* Decode the next event of the cursor's thread into ev.  Returns 1, or 0 at
 * the end of the thread's stream. */
int cursor_next(struct cursor *c, struct trace_event *ev)
{
	for (;;) {
		const uint8_t *p = c->pos, *start = p;
		uint64_t v, d, landing = 0;
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
			if (c->gap) {
				memset(ev, 0, sizeof(*ev));
				ev->kind = TRACE_GAP;
				ev->count = c->gap;
				ev->addr = (uint64_t)(int64_t)c->gap_depth;
				ev->callsite_vaddr = c->gap_below;
				ev->ns = c->th->last_ns;
				ev->thread = c->th;
				c->gap = 0;
				return 1;
			}
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
			if (payload > c->new_max) {
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
			struct cache_slot *s = &c->cache[fnt_new_slot(addr, payload)];
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
			ev->kind = (payload & 1) ? TRACE_EXIT : TRACE_ENTRY;
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
			case FNT_EXT_LANDING:      /* stray: read with its UNWIND_TO */
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
			case FNT_EXT_UNWIND_TO: {   /* an exception's landing pad */
				uint64_t addr;
				n = get_varint(p, c->end, &addr);
				if (n <= 0) {
					chunk_damage(c, start);
					continue;
				}
				p += n;
				c->ticks += d;
				const struct trace_module *m = module_at(c->p, addr, c->ticks);
				uint32_t f = func_find(c->p->trace, m ? m->file : TRACE_NO_FILE, m ? addr - m->bias : addr);
				if (f == UINT32_MAX) {
					c->pos = p;     /* a function that never ran traced: no frame of it to land in */
					continue;
				}
				ev->kind = TRACE_UNWIND_TO;
				ev->func = f;
				ev->addr = addr;
				p += record_after(p, c->end, FNT_EXT_LANDING, addr, &landing);   /* the pad itself */
				break;
			}
			case FNT_EXT_SWITCH:        /* a stack switch (coroutines) */
			case FNT_EXT_SWITCH_OPEN: {
				uint64_t id, open = 0, under = 0;
				int m = 0, u = 0, three = payload == FNT_EXT_SWITCH_OPEN;
				n = get_varint(p, c->end, &id);
				if (n > 0 && three)
					m = get_varint(p + n, c->end, &open);
				if (m > 0)
					u = get_varint(p + n + m, c->end, &under);
				if (n <= 0 || (three && (m <= 0 || u <= 0 || open > (1u << 20) || under > (1u << 20) ||
							 c->p->hdr.version < 3))) {
					chunk_damage(c, start);
					continue;
				}
				p += n + m + u;
				c->ticks += d;
				ev->kind = TRACE_SWITCH;
				ev->count = id;
				/* 1 + the calls open on it, and 1 + those under it,
				 * when the file says (a SWITCH of version 3 has none of
				 * either), else 0 */
				ev->addr = three ? 1 + open : c->p->hdr.version >= 3;
				ev->callsite_vaddr = three ? 1 + under : c->p->hdr.version >= 3;
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
		if (landing) {
			ev->callsite = landing;
			callsite_resolve(c, ev);
		}
		if (ev->kind == TRACE_ENTRY && (c->p->hdr.flags & FNT_FLAG_CALLSITE) &&
		    (n = record_after(p, c->end, FNT_EXT_CALLSITE, ev->addr, &ev->callsite))) {
			c->pos = p + n;         /* the CALLSITE record that follows its entry */
			callsite_resolve(c, ev);
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
void buffer_prepare(struct cursor *c)
{
	memset(c->buf, 0, c->cap * sizeof(*c->buf));
	for (size_t i = 0; i < c->cap; i++)
		c->buf[i].thread = c->th;
}

void cursor_init(struct cursor *c, struct trace_thread *th, uint64_t *changes, size_t n_changes,
			struct walk_cache *wc, struct trace_event *buf, size_t cap)
{
	memset(c, 0, sizeof(*c));
	c->wc = wc;
	c->buf = buf;
	c->cap = cap;
	c->th = th;
	c->p = th->proc;
	c->new_max = th->proc->hdr.version >= 2 ? 3 : 1;
	c->changes = changes;
	c->n_changes = n_changes;
	c->next_change = n_changes ? changes[0] : UINT64_MAX;
	th->events = th->lost = 0;
	th->ended = 0;
	buffer_prepare(c);
}

/* the bytes of a varint of length 1..8 (index 0 unused) */
static const uint64_t varint_mask[9] = {
	0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull, 0xffffffffffffull, 0xffffffffffffffull,
	0xffffffffffffffffull,
};

/* How far ahead of the event it decodes fast_run() asks for the trace's
 * bytes.  Each event's position waits on the length byte of the one
 * before, so a cache miss on the mapped file stalls the whole chain; the
 * processor's own prefetcher stops at each 4 KiB page, which at 2-3 bytes
 * an event is every 1,500-2,000 events.  A prefetch per event costs one
 * instruction (doc/perf-floor.md, "Decoding: the trace's bytes asked for
 * ahead"). */
#ifndef DECODE_AHEAD
#define DECODE_AHEAD 512
#endif

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
		__builtin_prefetch(p + DECODE_AHEAD);
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
				/* a length below 128 (one byte, low bit set) without
				 * the table: the next event's position waits on it */
				unsigned l2 = 1;
				uint64_t pl = q[1] >> 1;
				if (!(q[1] & 1)) {
					l2 = (unsigned)__builtin_ctz(q[1] | 0x100) + 1;
					if (l2 > 2)
						break;
					memcpy(&pl, q + 1, 8);
					pl = (pl & varint_mask[l2]) >> l2;
				}
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

/* A NEW event whose address this walk has already resolved since the last
 * module change (the walk cache's hit, without call sites or values) into
 * ev, exactly as cursor_next would decode it, without leaving the batch
 * loop: in a program with many functions the format's 64 slots collide
 * (sqlite: 15 % of its events are NEW, nine in ten of them walk-cache
 * hits), and each one left fast_run for a cleared event and cursor_next's
 * every check.
 * Returns 1, or 0 with nothing changed: the event is left to cursor_next
 * (a thread's first event, which sets first_ns, too). */
static inline int fast_new(struct cursor *c, struct trace_event *ev)
{
	const uint8_t *p = c->pos, *end = c->end, *q;
	uint64_t x, v, zz, nt, addr;
	unsigned len, l2;

	if (end - p < 8 || !*p || c->ticks_went_back || !c->th->events)
		return 0;
	len = (unsigned)__builtin_ctz(*p) + 1;
	memcpy(&x, p, 8);
	v = (x & varint_mask[len]) >> len;
	nt = c->ticks + (v >> 8);
	q = p + len;
	/* NEW with payload 0 (entry) or 1 (exit), maybe with bit 1 (the other
	 * slot of the set, from version 2), then its address varint */
	if ((v & 0xf3) != FNT_K_NEW || ((v >> 2) & 3) > c->new_max || nt >= c->next_change || end - q < 8 || !*q)
		return 0;
	l2 = (unsigned)__builtin_ctz(*q) + 1;
	memcpy(&zz, q, 8);
	zz = (zz & varint_mask[l2]) >> l2;
	addr = c->prev_new + (uint64_t)fnt_unzigzag(zz);
	const struct resolved_slot *r = &c->wc->resolved[(addr * 0x9E3779B97F4A7C15ull) >> (64 - RESOLVED_BITS)];
	if (!addr || addr >= (1ull << 57) || r->addr != addr || r->p != c->p || r->gen != c->gen + 1)
		return 0;
	struct cache_slot *s = &c->cache[fnt_new_slot(addr, (unsigned)(v >> 2))];
	s->addr = addr;
	s->gen = c->gen + 1;
	s->func = r->func;
	c->prev_new = addr;
	c->ticks = nt;
	c->pos = q + l2;
	ev->kind = (v & 4) ? TRACE_EXIT : TRACE_ENTRY;
	ev->func = r->func;
	ev->addr = addr;
	ev->ns = to_ns(c->p, nt);
	ev->thread = c->th;
	ev->callsite = 0;
	ev->callsite_vaddr = 0;
	ev->payload = NULL;
	ev->callsite_file = 0;
	ev->payload_len = 0;
	return 1;
}

_Static_assert(sizeof(struct trace_event) == 64, "an event is one cache line");

/* a batch buffer, one event per cache line */
struct trace_event *batch_alloc(size_t n)
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
size_t cursor_fill(struct cursor *c)
{
	struct trace_event *buf = c->buf;
	struct trace_thread *th = c->th;
	const struct trace_process *proc = c->p;
	const int cs = !!(proc->hdr.flags & FNT_FLAG_CALLSITE);
	/* entries and exits may carry ARGS/RETVAL records */
	const int ar = !!(proc->hdr.flags & FNT_FLAG_ARGS);
	size_t n = 0;
	uint64_t max_ns = 0;

	if (th->left_lo) {          /* the views are done with the last batch */
		drop_chunk(th, th->left_lo, th->left_hi);
		th->left_lo = th->left_hi = NULL;
	}
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
		if (!cs && !ar && fast_new(c, ev)) {
			th->events++;
			th->last_ns = ev->ns;
			if (ev->ns > max_ns)
				max_ns = ev->ns;
			n++;
			continue;
		}
		memset(ev, 0, sizeof(*ev));
		if (!cursor_next(c, ev))
			break;
		if (ev->ns > max_ns)
			max_ns = ev->ns;
		n++;
		/* a batch holds one chunk's end at most (th->left_lo) */
		if (th->left_lo)
			break;
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

int trace_has_function_events(const struct trace *t)
{
	return t->n_funcs > 0;
}
