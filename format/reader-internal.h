/*
 * reader-internal.h - what the reader's files share, not part of its API
 * (format/reader.h is).  reader-open.c opens and checks a trace;
 * reader-decode.c decodes one thread's events with a cursor; reader-walk.c
 * walks threads one after another or merged in time order; reader-fork.c
 * finds the frames a forked child inherited; reader-modules.c finds the
 * module that held an address at a time.
 */
#ifndef FNT_READER_INTERNAL_H
#define FNT_READER_INTERNAL_H

#include "format/reader.h"
#include "format/safeio.h"

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

/* A chunk's `below` (format.h), when it makes sense (each count under
 * 2^20, as a depth the views take); else 0 */
static inline uint64_t below_of(const struct fnt_chunk_header *ch)
{
	uint64_t on = ch->below & 0xffffffff, under = ch->below >> 32;
	return on && on <= (1u << 20) && under <= (1u << 20) ? ch->below : 0;
}

struct cursor {
	struct trace_thread *th;
	struct trace_process *p;
	size_t ci;                   /* next chunk (index into th->chunks) */
	const uint8_t *pos, *end;    /* event data of the current chunk */
	const uint8_t *cut, *data_end;   /* copy_cut: where the chunk's copy may have been cut (end), and
					  * where its bytes end (zeros from cut on), else NULL */
	const uint8_t *chunk_base;
	uint64_t ticks, prev_new;
	unsigned new_max;            /* the largest NEW payload: 1 in version 1, 3 since (two-way sets) */
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
	/* the seq of the chunk read last (have_seq: one was), and a gap to
	 * hand out before the next event: chunks missing, the depth after */
	uint32_t seq;
	int have_seq;
	uint32_t gap;
	int32_t gap_depth;
	uint64_t gap_below;           /* the chunk after the gap: its header's `below` (below_of) */
	struct trace_event *buf;     /* decoded batch: buf[i..n) not yet handed out */
	size_t i, n, cap;            /* cap: size of buf (at most TRACE_BATCH) */
	uint64_t max_ns;             /* latest time in buf[0..n) */
	/* the body of the MARK / STACK event that ended the current batch */
	struct trace_body body;
	char text[FNT_MARK_MAX + 1];
	uint64_t stack[FNT_STACK_MAX], stack_vaddr[FNT_STACK_MAX];
	uint32_t stack_file[FNT_STACK_MAX];
};

/* reader-open.c */
void *xrealloc_(void *p, size_t n);
void *grow_(void *p, size_t n, size_t size);
const struct fnt_chunk_header *chunk_at(const struct trace_process *p, uint64_t idx, size_t *avail);

/* reader-modules.c: the index is built once the module map and its times
 * (ticks and ns) are final, and never changes after */
void module_index_build(struct trace_process *p);
void module_index_free(struct trace_process *p);
/* reader-decode.c */
uint64_t ticks_ns(const struct trace_process *p, uint64_t ticks);   /* as the events' times */
const struct trace_module *module_at(const struct trace_process *p, uint64_t addr, uint64_t ticks);

/* The reader's hash tables (functions, module files, open modules, named
 * scopes) hash keys that a trace chooses: each with the trace's random seed
 * (trace->hash_seed) and fnt_mix64 (format/safeio.h). */
/* reader-decode.c */
uint64_t func_key_hash(uint64_t seed, uint32_t file, uint64_t vaddr);
void process_changes(struct trace_process *p, uint64_t **out, size_t *n);
void chunk_done(struct cursor *c);
void thread_release(struct trace_thread *th);
void thread_park(struct trace_thread *th);
int cursor_next(struct cursor *c, struct trace_event *ev);
void buffer_prepare(struct cursor *c);
void cursor_init(struct cursor *c, struct trace_thread *th, uint64_t *changes, size_t n_changes,
		 struct walk_cache *wc, struct trace_event *buf, size_t cap);
struct trace_event *batch_alloc(size_t n);
size_t cursor_fill(struct cursor *c);

#endif
