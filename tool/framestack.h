/*
 * framestack.h - a stack whose memory is bounded whatever its depth, for the
 * per-thread open frames of the call layer (calls.c) and of the views that
 * keep their own (calltree.c, report): the top FS_RESIDENT pages of FS_PAGE
 * elements stay in memory, deeper pages go to an unlinked temporary file
 * and come back when the stack shrinks to them.
 */
#ifndef FNT_FRAMESTACK_H
#define FNT_FRAMESTACK_H

#include <stddef.h>
#include "tool/tool.h"

#define FS_PAGE 16384u            /* elements per page */
#define FS_RESIDENT 4u            /* pages kept in memory */

struct pstack {
	size_t elem;               /* bytes per element */
	char **page;               /* page[i]: NULL when spilled (or not yet used) */
	size_t n_page_slots;
	size_t n;                  /* elements on the stack */
	size_t lo;                 /* pages below lo are spilled */
	int fd;                    /* spill file, -1 until needed */
	char *scan;                /* a spilled page read back for ps_at */
	size_t scan_page;
	int scan_dirty;
};

void ps_init(struct pstack *s, size_t elem);
void ps_free(struct pstack *s);
/* a new element on top (uninitialised) */
void *ps_push(struct pstack *s);
/* remove the top element; its memory stays valid until the next push */
void ps_pop(struct pstack *s);
/* element i (0: the bottom); a spilled one is read back: the pointer is
 * valid until the next ps_* call, and changes to it are kept */
void *ps_at(struct pstack *s, size_t i);

static inline void *ps_top(struct pstack *s)
{
	return s->n ? ps_at(s, s->n - 1) : NULL;
}

/* The same three, inline where nothing moves between memory and the file
 * (a page in memory; a push or pop within a page), for the views that
 * touch the stack at every event (report). */
static inline void *ps_at_fast(struct pstack *s, size_t i)
{
	size_t p = i / FS_PAGE;
	if (__builtin_expect(p >= s->lo, 1))
		return s->page[p] + (i % FS_PAGE) * s->elem;
	return ps_at(s, i);
}

static inline void *ps_push_fast(struct pstack *s)
{
	size_t i = s->n;
	if (__builtin_expect(i % FS_PAGE != 0, 1)) {
		s->n++;
		return s->page[i / FS_PAGE] + (i % FS_PAGE) * s->elem;
	}
	return ps_push(s);
}

static inline void ps_pop_fast(struct pstack *s)
{
	if (__builtin_expect(s->n > 1 && (s->n - 1) % FS_PAGE != 0, 1))
		s->n--;
	else
		ps_pop(s);
}

/* the call layer's frames: every view's, at every event, so inline */
#define fstack pstack
static inline void fs_init(struct pstack *s) { ps_init(s, sizeof(struct frame)); }
static inline void fs_free(struct pstack *s) { ps_free(s); }
static inline struct frame *fs_push(struct pstack *s) { return ps_push_fast(s); }
static inline void fs_pop(struct pstack *s) { ps_pop_fast(s); }
static inline struct frame *fs_at(struct pstack *s, size_t i) { return ps_at_fast(s, i); }
static inline struct frame *fs_top(struct pstack *s) { return s->n ? ps_at_fast(s, s->n - 1) : NULL; }

#endif
