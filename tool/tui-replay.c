/*
 * tui-replay.c - the replay view of one thread without holding it: the
 * thread is walked again through the call layer (the same filters as every
 * view) and its lines are numbered as they come; a walk keeps the window
 * of lines the screen needs, or stops at the first line a search wants.
 * The line rules are replay's: a call with no shown callee is one line
 * "f();", any other opens with "f() {" and closes with "} /\* f *\/".
 *
 * A walk starts at the thread's first event, so reaching line N costs the
 * events before it; the window is large enough that scrolling re-reads
 * rarely (doc/tui.md has the figures).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool/tui.h"

#define WINDOW 4096

struct replay_walk {
	struct tui_replay *r;
	struct trace_thread *th;
	uint64_t next;           /* the number of the next line */
	int pending;             /* pend's line waits: leaf or opening */
	struct tui_line pend;
	int stopped;
	int (*on_line)(struct replay_walk *w, const struct tui_line *l);   /* 1: stop */
	/* find */
	uint64_t from, found;
	int dir;
	const uint8_t *match;
	size_t n_match;
};

static void emit(struct replay_walk *w, const struct tui_line *l)
{
	if (w->stopped)
		return;
	if (w->on_line(w, l))
		w->stopped = w->r->v->stop_walk = 1;
	w->next++;
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	struct replay_walk *w = ctx;
	if (th != w->th || w->stopped)
		return;
	if (w->pending) {
		w->pend.kind = LINE_OPEN;
		emit(w, &w->pend);
	}
	w->pending = 1;
	memset(&w->pend, 0, sizeof(w->pend));
	w->pend.func = f->func;
	w->pend.depth = f->depth;
	w->pend.ns = f->start_ns;
	w->pend.addr = f->addr;
	w->pend.args = f->args;
	w->pend.args_len = f->args_len;
}

static void note(struct replay_walk *w, struct trace_thread *th, const char *text, size_t len, uint64_t ns,
		 int depth)
{
	struct tui_line l = { .kind = LINE_NOTE, .depth = depth, .ns = ns, .text = text, .text_len = len };
	if (th != w->th || w->stopped)
		return;
	if (w->pending) {
		w->pend.kind = LINE_OPEN;
		emit(w, &w->pend);
	}
	w->pending = 0;
	emit(w, &l);
}

static void on_mark(void *ctx, struct trace_thread *th, const char *text, size_t len, uint64_t ns, int depth)
{
	char buf[4096];
	int n = snprintf(buf, sizeof(buf), "mark: %.*s", (int)(len < 4000 ? len : 4000), text);
	note(ctx, th, buf, (size_t)n, ns, depth);
}

static void on_lost(void *ctx, struct trace_thread *th, uint64_t count, uint64_t ns)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%" PRIu64 " events lost here", count);
	note(ctx, th, buf, (size_t)n, ns, 0);
}

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct replay_walk *w = ctx;
	struct tui_line l = {
		.func = f->func, .depth = f->depth, .kind = w->pending ? LINE_LEAF : LINE_CLOSE, .how = (uint8_t)how,
		.ns = end_ns, .dur = end_ns > f->start_ns ? end_ns - f->start_ns : 0,
		.addr = f->addr, .args = f->args, .args_len = f->args_len,
		.ret = how == CALL_RETURN ? f->ret : NULL, .ret_len = how == CALL_RETURN ? f->ret_len : 0,
	};
	if (th != w->th || w->stopped)
		return;
	w->pending = 0;
	emit(w, &l);
}

/* walk the thread alone (the other threads' selection is kept aside) */
static void walk(struct replay_walk *w)
{
	static const struct calls_ops ops = { .begin = on_begin, .end = on_end, .lost = on_lost, .mark = on_mark };
	struct trace *t = w->r->v->trace;
	size_t n = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		n += t->procs[i].n_threads;
	uint8_t *sel = xmalloc(n ? n : 1);
	n = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct trace_thread *th = &t->procs[i].threads[k];
			sel[n++] = (uint8_t)th->selected;
			th->selected = th == w->th;
		}
	/* a walk stopped early leaves the thread's counts short: the ones of
	 * the whole walk are what the warnings at exit must see */
	struct trace_thread keep = *w->th;
	uint64_t end_ns = t->end_ns;
	calls_walk(w->r->v, 0, &ops, w, 0);
	w->r->v->stop_walk = 0;
	w->th->events = keep.events;
	w->th->lost = keep.lost;
	w->th->first_ns = keep.first_ns;
	w->th->last_ns = keep.last_ns;
	w->th->ended = keep.ended;
	t->end_ns = end_ns;
	n = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++)
			t->procs[i].threads[k].selected = sel[n++];
	free(sel);
}

static int keep_line(struct replay_walk *w, const struct tui_line *l)
{
	struct tui_replay *r = w->r;
	if (w->next < r->lo)
		return 0;
	struct tui_line *k = &r->win[r->n++];
	*k = *l;
	if (l->kind == LINE_NOTE) {
		if (r->notes_len + l->text_len + 1 > r->notes_cap) {
			r->notes_cap = 2 * (r->notes_len + l->text_len + 1) + 1024;
			r->notes = xrealloc(r->notes, r->notes_cap);
		}
		memcpy(r->notes + r->notes_len, l->text, l->text_len);
		r->notes[r->notes_len + l->text_len] = 0;
		k->note_off = r->notes_len;
		r->notes_len += l->text_len + 1;
	}
	k->text = NULL;
	return r->n == r->cap;
}

void tui_replay_window(struct tui_replay *r, uint64_t first, size_t count)
{
	struct replay_walk w = { .r = r, .th = r->t->th, .on_line = keep_line };
	uint64_t end = first + count;
	if (end > r->t->lines)
		end = r->t->lines;
	if (first >= r->lo && end <= r->lo + r->n)
		return;
	if (r->cap < count + WINDOW) {
		r->cap = count + WINDOW;
		r->win = xrealloc(r->win, r->cap * sizeof(*r->win));
	}
	/* a quarter of the window before what is asked, for scrolling back */
	r->lo = first > WINDOW / 4 ? first - WINDOW / 4 : 0;
	r->n = 0;
	r->notes_len = 0;
	walk(&w);
}

static int find_line(struct replay_walk *w, const struct tui_line *l)
{
	int hit = (l->kind == LINE_LEAF || l->kind == LINE_OPEN) && l->func < w->n_match && w->match[l->func];
	if (w->dir > 0) {
		if ((w->from == UINT64_MAX || w->next > w->from) && hit) {
			w->found = w->next;
			return 1;
		}
		return 0;
	}
	if (w->next >= w->from)
		return 1;
	if (hit)
		w->found = w->next;
	return 0;
}

uint64_t tui_replay_find(struct tui_replay *r, uint64_t from, int dir, const uint8_t *match, size_t n_match)
{
	struct replay_walk w = {
		.r = r, .th = r->t->th, .on_line = find_line, .from = from, .found = UINT64_MAX, .dir = dir,
		.match = match, .n_match = n_match,
	};
	/* the window may already hold the answer (when it starts at or before from) */
	for (size_t i = 0; i < r->n && dir > 0 && (from == UINT64_MAX ? r->lo == 0 : from + 1 >= r->lo); i++) {
		uint64_t no = r->lo + i;
		const struct tui_line *l = &r->win[i];
		if ((from == UINT64_MAX || no > from) && (l->kind == LINE_LEAF || l->kind == LINE_OPEN) &&
		    l->func < n_match && match[l->func])
			return no;
	}
	walk(&w);
	return w.found;
}

void tui_replay_release(struct tui_replay *r)
{
	free(r->win);
	free(r->notes);
	r->win = NULL;
	r->notes = NULL;
	r->n = r->cap = 0;
	r->notes_len = r->notes_cap = 0;
}
