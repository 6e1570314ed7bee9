/*
 * calls.c - the call layer between the reader and the views: it keeps a
 * stack per thread, matches each exit with its entry, and hands views whole
 * calls (begin, end with duration) with the -F/-N/-D filters applied.
 *
 * Exits are matched by address.  An exit whose function is deeper in the
 * stack closes the frames above it as unwound (longjmp skipped their
 * exits); frames still open when a thread's stream ends are closed as
 * truncated (a crash, exit() from a nested call).  An exit with no entry at
 * all (a forked child returning through its parent's frames) is an orphan.
 *
 * --since/--until keep the calls that overlap the window (start <= until
 * and end >= since), with their real times (not clipped).  A thread's
 * frames are held back until its first event at or after `since`: the
 * frames still open then are begun (in stack order, with their own start
 * times), the ones that ended before are never shown; entries after
 * `until` are not begun.  A frame's end goes out only if its begin did.
 */
#include <stdlib.h>
#include <string.h>
#include "tool/framestack.h"
#include "tool/tool.h"

struct tstack {
	struct fstack fs;    /* open frames (framestack.c: bounded memory at any depth) */
	int base;            /* depth of the frames entered before this stream began */
	int reached;         /* the thread's events have reached --since */
	int forked;          /* the frames inherited at a fork were looked at */
	size_t decided;      /* -t: frames below this index have lasted min_ns (or were never waiting) */
	size_t c_done;       /* -C: no frame below this index waits to learn whether it leads to a -C function */
	uint64_t stack;      /* coroutines: the machine stack these frames are on (0: the thread's own) */
	struct tstack *parked;   /* the frames of the other machine stacks (fs, base, decided, stack) */
	size_t n_parked;
};

struct calls_walk {
	struct view *v;
	const struct calls_ops *ops;
	void *ctx;
	int all;
	int filtering;       /* -F, -N, -H, -C or -D given */
	int callers;         /* -C given */
	uint64_t since, until;
	uint64_t min;        /* -t */
};

static struct tstack *stack_of(struct trace_thread *th)
{
	struct tstack *s = th->view_data;
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		fs_init(&s->fs);
		s->base = th->start_depth > 0 ? th->start_depth : 0;
		th->view_data = s;
	}
	return s;
}

/* Coroutines: the thread moved to machine stack `id`.  The current frames
 * are parked (a suspended coroutine's stay open); the other stack's come
 * back, or a new stack starts its frames at the depth of the switch. */
static void switch_stack(struct tstack *s, uint64_t id)
{
	if (id == s->stack)
		return;
	struct frame *top = fs_top(&s->fs);
	int depth = top ? top->depth + (top->shown ? 1 : 0) : s->base;
	struct tstack *slot = NULL;
	for (size_t i = 0; i < s->n_parked; i++)
		if (s->parked[i].stack == id)
			slot = &s->parked[i];
	if (!slot) {
		s->parked = xrealloc(s->parked, (s->n_parked + 1) * sizeof(*s->parked));
		slot = &s->parked[s->n_parked++];
		memset(slot, 0, sizeof(*slot));
		fs_init(&slot->fs);
		slot->stack = id;
		slot->base = depth;
	}
	struct tstack cur = *s;
	s->fs = slot->fs;
	s->base = slot->base;
	s->decided = slot->decided;
	s->stack = id;
	slot->fs = cur.fs;
	slot->base = cur.base;
	slot->decided = cur.decided;
	slot->stack = cur.stack;
}

/* an exit with no frame on this stack: a coroutine returned to its
 * uc_link inside libc, which wrote no switch; the parked stack whose
 * innermost frame it closes is where the thread is now */
static int find_parked(struct tstack *s, uint64_t addr)
{
	for (size_t i = 0; i < s->n_parked; i++)
		if (s->parked[i].fs.n && fs_top(&s->parked[i].fs)->addr == addr) {
			switch_stack(s, s->parked[i].stack);
			return 1;
		}
	return 0;
}

static void pop(struct calls_walk *w, struct trace_thread *th, struct tstack *s, uint64_t ns, enum call_end how)
{
	struct frame *f = fs_top(&s->fs);
	fs_pop(&s->fs);          /* f stays valid until the next push */
	uint64_t dur = ns > f->start_ns ? ns - f->start_ns : 0;
	if (s->decided > s->fs.n)
		s->decided = s->fs.n;
	if (s->c_done > s->fs.n)
		s->c_done = s->fs.n;
	if (f->wait_t)           /* -t: too short; its time stays its caller's own */
		return;
	if (s->fs.n)
		fs_top(&s->fs)->child_ns += dur;
	if (f->begun && w->ops->end)
		w->ops->end(w->ctx, th, f, ns, how);
}

/* the thread reached --since: begin the frames still open */
static void reach(struct calls_walk *w, struct trace_thread *th, struct tstack *s)
{
	s->reached = 1;
	for (size_t i = 0; i < s->fs.n; i++) {
		struct frame *f = fs_at(&s->fs, i);
		if (!f->begun && !f->wait_t && !f->wait_c && !f->inherited && (f->shown || w->all) &&
		    f->start_ns <= w->until) {
			f->begun = 1;
			if (w->ops->begin)
				w->ops->begin(w->ctx, th, f);
		}
	}
}

/* -t: begin the waiting frames that have lasted min_ns by `now`, outer
 * first (a frame starts no earlier than its caller) */
static void promote(struct calls_walk *w, struct trace_thread *th, struct tstack *s, uint64_t now)
{
	while (s->decided < s->fs.n) {
		struct frame *f = fs_at(&s->fs, s->decided);
		if (f->wait_t) {
			if (now - f->start_ns < w->min || now < f->start_ns)
				return;
			f->wait_t = 0;
			f->begun = 1;
			if (w->ops->begin)
				w->ops->begin(w->ctx, th, f);
		}
		s->decided++;
	}
}

static void close_all(struct calls_walk *w, struct trace_thread *th, uint64_t ns)
{
	struct tstack *s = th->view_data;
	if (!s)
		return;
	if (w->min)
		promote(w, th, s, ns);
	if (!s->reached && ns >= w->since)
		reach(w, th, s);
	while (s->fs.n)
		pop(w, th, s, ns, CALL_TRUNCATED);
	for (size_t i = 0; i < s->n_parked; i++)
		if (s->parked[i].fs.n) {        /* suspended coroutines, never resumed */
			switch_stack(s, s->parked[i].stack);
			while (s->fs.n)
				pop(w, th, s, ns, CALL_TRUNCATED);
		}
}

/* -C: a call is shown only if it is a -C function or leads to one.  Calls
 * wait (wait_c) until a -C function is entered below them, which begins the
 * waiting callers, outermost first; the callees of a -C function are not
 * shown; calls that never lead to one end unseen. */
static void caller_filter(struct calls_walk *w, struct trace_thread *th, struct tstack *s, struct frame *f,
			  const struct frame *parent)
{
	if (parent && parent->in_c) {
		f->in_c = 1;
		f->shown = f->begun = f->wait_t = 0;
		return;
	}
	if (!(view_filter_match(w->v, f->func) & 16)) {
		if (f->shown && (f->begun || f->wait_t || !s->reached)) {
			f->wait_c = 1;
			f->begun = 0;
		}
		return;
	}
	f->in_c = 1;
	for (size_t i = s->c_done; i + 1 < s->fs.n; i++) {
		struct frame *a = fs_at(&s->fs, i);
		if (!a->wait_c)
			continue;
		a->wait_c = 0;
		if (s->reached && !a->wait_t && a->start_ns <= w->until) {
			a->begun = 1;
			if (w->ops->begin)
				w->ops->begin(w->ctx, th, a);
		}
	}
	s->c_done = s->fs.n;
}

/* -F/-N/-H/-D: where an entered frame shows, if at all */
static void entry_filters(struct calls_walk *w, struct tstack *s, struct frame *f, const struct frame *parent)
{
	f->depth = parent ? parent->depth + (parent->shown ? 1 : 0) : s->base;
	if (w->filtering) {
		int m = view_filter_match(w->v, f->func);
		f->hidden = (parent && parent->hidden) || (m & 2);
		f->in_filter = !w->v->opts->filter.n || (parent && parent->in_filter) || (m & 1);
		if (w->v->opts->filter.n && f->in_filter && !(parent && parent->in_filter))
			f->depth = 0;
		f->shown = f->in_filter && !f->hidden && !(m & 4) &&    /* -H: its callees one level up */
			   (!w->v->opts->max_depth || f->depth < w->v->opts->max_depth);
	} else {
		f->hidden = 0;
		f->in_filter = 1;
		f->shown = 1;
	}
}

/* A forked child's first events: the frames it inherited from its parent
 * (the reader finds them at the fork) go on its stack, never begun, so the
 * filters treat its calls as the record-time filters do (which the child
 * inherits in memory): under an inherited -F function they are in, under
 * an inherited -N one they are out.  Their returns are orphans. */
static void inherit_frames(struct calls_walk *w, struct trace_thread *th, struct tstack *s)
{
	const struct trace_frame_ref *in;
	size_t n = trace_inherited(w->v->trace, th, &in);
	s->forked = 1;
	if (!n)
		return;
	s->base = th->start_depth > (int)n ? th->start_depth - (int)n : 0;
	for (size_t i = 0; i < n; i++) {
		struct frame *parent = s->fs.n ? fs_top(&s->fs) : NULL;
		struct frame *f = fs_push(&s->fs);
		memset(f, 0, sizeof(*f));
		f->func = in[i].func;
		f->addr = in[i].addr;
		f->inherited = 1;
		entry_filters(w, s, f, parent);
		f->start_ns = 0;
	}
	s->decided = s->c_done = s->fs.n;
}

static inline void on_event(struct calls_walk *w, struct trace_thread *th, struct tstack *s,
			    const struct trace_event *ev)
{
	int in_range = ev->ns >= w->since && ev->ns <= w->until;

	if (!s->reached && ev->ns >= w->since)
		reach(w, th, s);
	if (w->min && s->decided < s->fs.n)
		promote(w, th, s, ev->ns);
	switch (ev->kind) {
	case TRACE_ENTRY: {
		struct frame *parent, *f;
		f = fs_push(&s->fs);
		parent = s->fs.n > 1 ? fs_at(&s->fs, s->fs.n - 2) : NULL;   /* resident: near the top */
		f->func = ev->func;
		f->addr = ev->addr;
		f->start_ns = ev->ns;
		f->child_ns = 0;
		f->callsite = ev->callsite;
		f->callsite_file = ev->callsite_file;
		f->callsite_vaddr = ev->callsite_vaddr;
		/* payloads only where the file says records carry them (elsewhere
		 * the field holds whatever the batch slot held before) */
		f->args = (th->proc->hdr.flags & FNT_FLAG_ARGS) ? ev->payload : NULL;
		f->args_len = f->args ? ev->payload_len : 0;
		f->ret = NULL;
		f->ret_len = 0;
		f->inherited = 0;
		entry_filters(w, s, f, parent);
		f->begun = (f->shown || w->all) && s->reached && ev->ns <= w->until;
		f->wait_t = 0;
		if (w->min && f->begun && f->shown) {
			f->begun = 0;
			f->wait_t = 1;
		}
		f->wait_c = f->in_c = 0;
		if (w->callers)
			caller_filter(w, th, s, f, parent);
		if (f->begun && w->ops->begin)
			w->ops->begin(w->ctx, th, f);
		break;
	}
	case TRACE_EXIT: {
		size_t i = s->fs.n;
		while (i > 0 && fs_at(&s->fs, i - 1)->addr != ev->addr)
			i--;
		if (!i && s->n_parked && find_parked(s, ev->addr))
			i = s->fs.n;
		if (!i) {
			if (s->fs.n == 0) {
				if (s->base > 0)
					s->base--;
				if (w->ops->orphan && !w->filtering && in_range)
					w->ops->orphan(w->ctx, th, ev->func, ev->ns, s->base);
			}
			break;
		}
		while (s->fs.n > i)
			pop(w, th, s, ev->ns, CALL_UNWOUND);
		struct frame *done = fs_top(&s->fs);
		if (done->inherited) {
			if (w->ops->orphan && done->shown && !w->callers && in_range)
				w->ops->orphan(w->ctx, th, ev->func, ev->ns, done->depth);
			fs_pop(&s->fs);
			break;
		}
		done->ret = (th->proc->hdr.flags & FNT_FLAG_ARGS) ? ev->payload : NULL;
		done->ret_len = done->ret ? ev->payload_len : 0;
		pop(w, th, s, ev->ns, CALL_RETURN);
		break;
	}
	case TRACE_LOST:
		if (w->ops->lost && in_range)
			w->ops->lost(w->ctx, th, ev->count, ev->ns);
		break;
	case TRACE_SWITCH:
		switch_stack(s, ev->count);
		break;
	case TRACE_UNWIND:
		for (uint64_t k = 0; k < ev->count && s->fs.n; k++)
			pop(w, th, s, ev->ns, CALL_UNWOUND);
		break;
	case TRACE_MARK:
		if (w->ops->mark && in_range && s->reached) {
			struct frame *top = fs_top(&s->fs);
			int depth = top ? top->depth + (top->shown ? 1 : 0) : s->base;
			w->ops->mark(w->ctx, th, ev->body->text, ev->body->text_len, ev->ns, depth);
		}
		break;
	case TRACE_STREAM_END:   /* at the thread's last event so far */
		if (w->v->opts->live)
			break;   /* live: more may come */
		close_all(w, th, ev->ns);
		break;
	case TRACE_THREAD_END:
		close_all(w, th, ev->ns);
		break;
	default:
		break;
	}
}

static int on_batch(void *ctx, const struct trace_event *ev, size_t n)
{
	struct calls_walk *w = ctx;
	struct trace_thread *th = ev->thread;
	struct tstack *s = stack_of(th);
	if (!s->forked && th->start_depth > 0 && w->filtering)
		inherit_frames(w, th, s);
	if (w->v->opts->live) {
		for (size_t i = 0; i < n; i++) {
			if (ev[i].ns > w->v->opts->horizon_ns && ev[i].kind != TRACE_STREAM_END)
				return 1;
			on_event(w, th, s, &ev[i]);
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		on_event(w, th, s, &ev[i]);
	return 0;
}

int calls_walk(struct view *v, int by_time, const struct calls_ops *ops, void *ctx, int all_frames)
{
	struct calls_walk w = {
		.v = v, .ops = ops, .ctx = ctx, .all = all_frames,
		.filtering = v->opts->filter.n || v->opts->notrace.n || v->opts->hide.n || v->opts->callers.n ||
			     v->opts->max_depth,
		.callers = v->opts->callers.n > 0,
		.since = v->opts->since_ns,
		.until = v->opts->has_until ? v->opts->until_ns : UINT64_MAX,
		.min = v->opts->min_ns,
	};
	struct trace *t = v->trace;
	int ret = trace_walk_batch(t, by_time, on_batch, &w);

	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct trace_thread *th = &t->procs[i].threads[k];
			if (!v->opts->live)
				close_all(&w, th, th->last_ns);
			if (th->view_data) {
				struct tstack *s = th->view_data;
				for (size_t j = 0; j < s->n_parked; j++)
					fs_free(&s->parked[j].fs);
				free(s->parked);
				fs_free(&s->fs);
				free(th->view_data);
				th->view_data = NULL;
			}
		}
	return ret;
}
