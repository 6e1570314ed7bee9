/*
 * reader-fork.c - the frames a forked child inherited: the parent thread's
 * open calls at the fork, found by decoding the parent's events up to it
 * (and the parent's own inherited frames, for children of children).
 */
#include <stdlib.h>
#include <string.h>
#include "format/ghosts.h"
#include "format/reader-internal.h"

/* ---- the frames a forked child inherited ---- */

/* The parent's thread that forked th's process: tid fork_tid of the
 * parent pid, in the image (an exec makes another) running at the fork */
static struct trace_thread *fork_parent_thread(struct trace *t, const struct trace_thread *th)
{
	struct trace_thread *found = NULL;
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		if (p == th->proc || p->hdr.pid != th->proc->hdr.ppid || !trace_same_pid_ns(p, th->proc))
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
	int gapped = 0;
	struct ghosts gh = { 0 };       /* format/ghosts.h: as the call layer counts an UNWIND */
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
			ghosts_settle(&gh, n);
			st = grow_(st, n, sizeof(*st));
			st[n++] = (struct trace_frame_ref){ ev.func, ev.addr };
		} else if (ev.kind == TRACE_EXIT) {
			size_t i = n;
			while (i > 0 && st[i - 1].addr != ev.addr)
				i--;
			if (i) {
				ghosts_add(&gh, i, n - i);
				n = i - 1;
			} else if (!n)
				gone++;         /* a frame the parent itself inherited */
		} else if (ev.kind == TRACE_UNWIND_TO) {
			size_t i = n;
			while (i > 0 && st[i - 1].addr != ev.addr)
				i--;
			if (i) {
				ghosts_add(&gh, i, n - i);
				n = i;
			}
		} else if (ev.kind == TRACE_UNWIND) {
			uint64_t below;
			n -= ghosts_unwind(&gh, n, ev.count, &below);
			gone += below;
		} else if (ev.kind == TRACE_GAP) {
			/* chunks missing: the frames open before are not known to
			 * be open at the fork (the views end them at the gap), nor
			 * the parent's own inherited ones below */
			n = 0;
			gh.n = 0;
			gapped = 1;
		}
	}
	chunk_done(c);
	thread_release(pt);
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
	prefix = prefix > gone && !gapped ? prefix - gone : 0;
	/* the runtime's depth at the fork counts the parent's ghosts too */
	uint64_t ghosts = (uint64_t)(pt->inherited_ghosts > 0 ? pt->inherited_ghosts : 0);
	for (size_t i = 0; i < gh.n; i++)
		ghosts += gh.g[i].n;
	ghosts_free(&gh);
	th->inherited_ghosts = ghosts < (uint64_t)th->start_depth ? (int32_t)ghosts : th->start_depth;
	size_t depth = (size_t)(th->start_depth - th->inherited_ghosts);
	size_t total = prefix + n, skip = total > depth ? total - depth : 0;
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
