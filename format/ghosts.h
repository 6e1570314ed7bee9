/*
 * ghosts.h - the calls the runtime still counts as open that a reader has
 * already closed.  clang's -finstrument-functions calls no exit hook for the
 * frames an exception unwinds: the reader closes them at the landing pad
 * (UNWIND_TO), or when a traced caller returns past them (a landing pad in
 * code that was not traced, a longjmp the runtime could not see), but the
 * runtime's count of open calls keeps them.  A later longjmp's UNWIND record
 * is counted by the runtime, so it includes them: a reader that popped that
 * many frames popped too many (main itself, and every later call shown at
 * the top level).
 *
 * A reader keeps them here, by the level of the innermost open frame they
 * lay inside (1 = the outermost frame, 0 = below every frame).  A frame that
 * closes hands its ghosts to its caller's level (ghosts_settle, lazily: at
 * the next push or ghost operation); an UNWIND takes a level's ghosts before
 * it pops the frame itself.  Empty unless the trace has such calls: one
 * test of n on the paths that push a frame.
 */
#ifndef FNT_GHOSTS_H
#define FNT_GHOSTS_H

#include <stdint.h>
#include <stdlib.h>

struct ghost {
	size_t level;
	uint64_t n;
};

struct ghosts {
	struct ghost *g;     /* by level, innermost last */
	size_t n, cap;
};

/* levels kept apart at most (16 bytes each); past it (or without memory)
 * new ghosts join the innermost level kept, so memory stays bounded */
#define GHOSTS_MAX 65536

/* no frame above level is open now: the ghosts noted above it are its */
static inline void ghosts_settle(struct ghosts *gh, size_t level)
{
	while (gh->n && gh->g[gh->n - 1].level > level) {
		if (gh->n >= 2 && gh->g[gh->n - 2].level >= level) {
			gh->g[gh->n - 2].n += gh->g[gh->n - 1].n;
			gh->n--;
		} else {
			gh->g[gh->n - 1].level = level;
		}
	}
}

/* k calls closed by the reader inside the frame at level (the innermost
 * open one after them) */
static inline void ghosts_add(struct ghosts *gh, size_t level, uint64_t k)
{
	if (!k)
		return;
	ghosts_settle(gh, level);
	if (gh->n && gh->g[gh->n - 1].level == level) {
		gh->g[gh->n - 1].n += k;
		return;
	}
	if (gh->n == gh->cap && gh->n < GHOSTS_MAX) {
		size_t cap = gh->cap ? gh->cap * 2 : 16;
		struct ghost *g = realloc(gh->g, cap * sizeof(*g));
		if (g) {
			gh->g = g;
			gh->cap = cap;
		}
	}
	if (gh->n == gh->cap) {
		if (gh->n)
			gh->g[gh->n - 1].n += k;
		return;
	}
	gh->g[gh->n++] = (struct ghost){ level, k };
}

/* An UNWIND of want calls reaching the frame at level (the innermost open
 * one, 0 for none): how many of them are ghosts inside it, taken */
static inline uint64_t ghosts_take(struct ghosts *gh, size_t level, uint64_t want)
{
	ghosts_settle(gh, level);
	if (!gh->n || gh->g[gh->n - 1].level != level)
		return 0;
	struct ghost *t = &gh->g[gh->n - 1];
	if (want < t->n) {
		t->n -= want;
		return want;
	}
	gh->n--;
	return t->n;
}

/* An UNWIND of count calls as the runtime counts them, with n frames open:
 * the ghosts inside each frame go before the frame.  Returns how many of
 * the n frames it pops (innermost first); *below: the calls it leaves
 * under the bottom frame (frames entered before this stream began) */
static inline size_t ghosts_unwind(struct ghosts *gh, size_t n, uint64_t count, uint64_t *below)
{
	size_t popped = 0;
	*below = 0;
	while (count && (count -= ghosts_take(gh, n - popped, count))) {
		if (popped == n) {
			*below = count;
			break;
		}
		count--;
		popped++;
	}
	return popped;
}

static inline void ghosts_free(struct ghosts *gh)
{
	free(gh->g);
	*gh = (struct ghosts){ 0 };
}

#endif
