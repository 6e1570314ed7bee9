/*
 * calltree.c - build the path-merged call tree (see calltree.h) from the
 * call layer.  Per thread the builder keeps one entry per open (shown)
 * frame: the node the call is counted in, or CT_NONE when it is outside
 * every anchor.  A call is added to its node when it ends, with its
 * inclusive time and its self time (inclusive minus callees), so the self
 * times of a subtree add up exactly to its root calls' inclusive time.
 *
 * Callers mode builds the inverted tree: an anchor activation creates the
 * path anchor <- caller <- ... <- first frame, and its calls and times are
 * added to every node of that path when it ends.  With recursion one node
 * can lie on the paths of nested activations (down <- down holds every
 * activation two or more levels deep): each node counts every activation's
 * calls and self time, but only the outermost open activation's inclusive
 * time, so no time is counted twice.  Threads are walked one after the
 * other, so the per-node open counts never mix threads.
 *
 * Direct recursion is collapsed (unless no_collapse): a call of f made by f
 * is counted in its caller's node (rec_calls says how many were), so `fib`
 * 30 levels deep is one node, not 30, and its inclusive time is its
 * outermost activations'.  Paths are cut at CT_MAX_DEPTH frames: deeper
 * frames are counted in one CT_DEEP node below the last.  Both keep the
 * tree, and every writer's output, linear in the number of events: without
 * them a recursion d deep makes d nodes whose paths print d names each.
 */
#include <stdlib.h>
#include <string.h>
#include "tool/calltree.h"
#include "tool/framestack.h"

void calltree_init(struct calltree *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 1024;
	t->n = xmalloc(t->cap * sizeof(*t->n));
	t->hash_mask = 2047;
	t->hash = xcalloc(t->hash_mask + 1, sizeof(*t->hash));
	t->len = 1;
	memset(&t->n[0], 0, sizeof(t->n[0]));
	t->n[0].func = CT_NONE;
	t->n[0].parent = CT_NONE;
	t->n[0].first_child = t->n[0].last_child = t->n[0].next = CT_NONE;
	t->n[0].depth = UINT32_MAX;
	t->n[0].cache_func = CT_NONE;
}

void calltree_release(struct calltree *t)
{
	free(t->n);
	free(t->hash);
	memset(t, 0, sizeof(*t));
}

static inline uint32_t hash_key(uint32_t parent, uint32_t func)
{
	uint64_t k = ((uint64_t)parent << 32 | func) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 32);
}

static void rehash(struct calltree *t)
{
	uint32_t size = (t->hash_mask + 1) * 2;
	free(t->hash);
	t->hash = xcalloc(size, sizeof(*t->hash));
	t->hash_mask = size - 1;
	for (uint32_t i = 1; i < t->len; i++) {
		uint32_t h = hash_key(t->n[i].parent, t->n[i].func) & t->hash_mask;
		while (t->hash[h])
			h = (h + 1) & t->hash_mask;
		t->hash[h] = i + 1;
	}
}

uint32_t calltree_child(struct calltree *t, uint32_t parent, uint32_t func)
{
	uint32_t h, i;
	struct ct_node *n;

	if (t->n[parent].cache_func == func)
		return t->n[parent].cache_node;
	h = hash_key(parent, func) & t->hash_mask;
	while ((i = t->hash[h])) {
		n = &t->n[i - 1];
		if (n->parent == parent && n->func == func) {
			t->n[parent].cache_func = func;
			t->n[parent].cache_node = i - 1;
			return i - 1;
		}
		h = (h + 1) & t->hash_mask;
	}
	if (t->len == UINT32_MAX - 1)
		die("the call tree has too many distinct paths");
	if (t->len == t->cap) {
		t->cap *= 2;
		t->n = xrealloc(t->n, (size_t)t->cap * sizeof(*t->n));
	}
	i = t->len++;
	n = &t->n[i];
	memset(n, 0, sizeof(*n));
	n->func = func;
	n->parent = parent;
	n->first_child = n->last_child = n->next = CT_NONE;
	n->cache_func = CT_NONE;
	n->depth = t->n[parent].depth + 1;
	if (t->n[parent].last_child == CT_NONE)
		t->n[parent].first_child = i;
	else
		t->n[t->n[parent].last_child].next = i;
	t->n[parent].last_child = i;
	t->hash[h] = i + 1;
	t->n[parent].cache_func = func;
	t->n[parent].cache_node = i;
	if ((uint64_t)t->len * 2 > t->hash_mask)
		rehash(t);
	return i;
}

struct ct_entry {
	uint32_t func;
	uint32_t node;       /* CT_UNDER/ALL: the call's node; CALLERS: leaf of its inverted path */
	uint32_t run;        /* index of the first entry of the run of frames of this func */
	uint8_t anchor;      /* CALLERS: this frame is an anchor activation */
	uint8_t folded;      /* counted in its caller's node: adds calls and self, not total */
	uint8_t borrowed;    /* coroutines: a frame of the stack this one was first entered from;
			      * 2: a frame a forked child inherited */
};

const char *calltree_name(struct view *v, uint32_t func)
{
	return func == CT_DEEP ? "[deeper than 4096 frames]" : view_name(v, func);
}

char **calltree_labels(struct view *v, const struct calltree *t, size_t *n)
{
	size_t nf = 0, k = 0;
	for (uint32_t i = 1; i < t->len; i++)
		if (t->n[i].func != CT_DEEP && t->n[i].func >= nf)
			nf = (size_t)t->n[i].func + 1;
	uint8_t *seen = xcalloc(nf ? nf : 1, 1);
	uint32_t *funcs = xmalloc((nf ? nf : 1) * sizeof(*funcs));
	for (uint32_t i = 1; i < t->len; i++) {
		uint32_t f = t->n[i].func;
		if (f != CT_DEEP && !seen[f]) {
			seen[f] = 1;
			funcs[k++] = f;
		}
	}
	char **l = view_labels(v, funcs, k), **by = xcalloc(nf ? nf : 1, sizeof(*by));
	for (size_t i = 0; i < k; i++)
		by[funcs[i]] = l[i];
	free(l);
	free(funcs);
	free(seen);
	*n = nf;
	return by;
}

const char *calltree_label(struct view *v, char *const *labels, size_t n, uint32_t func)
{
	return func < n && labels[func] ? labels[func] : calltree_name(v, func);
}

/* the node for a call of func under parent: the parent itself for direct
 * recursion (when collapsing) and below the depth cap */
static uint32_t child_of(struct calltree_build *b, uint32_t parent, uint32_t func, uint8_t *folded)
{
	struct ct_node *p = &b->tree->n[parent];
	if (parent && (p->func == CT_DEEP || (!b->no_collapse && p->func == func))) {
		*folded = 1;
		return parent;
	}
	if (parent && p->depth + 2 >= CT_MAX_DEPTH)
		func = CT_DEEP;
	return calltree_child(b->tree, parent, func);
}

struct ct_thread {
	struct pstack e;         /* struct ct_entry per open frame (bounded memory: framestack.c) */
	void *user;              /* the next ops' per-thread state */
	/* coroutines: the entries of the machine stacks the thread is not on.
	 * A stack first entered from a call path starts with a copy of that
	 * path (borrowed entries, never ended here), so that its calls nest
	 * under the call that first switched to it, as replay shows them */
	struct ct_parked {
		uint64_t id;
		struct pstack e;
	} *parked;
	size_t n_parked;
	int inherit_done;        /* a forked child's inherited path was put in */
};

static struct ct_thread *thread_of(struct trace_thread *th)
{
	if (!th->view_aux) {
		struct ct_thread *s = xcalloc(1, sizeof(*s));
		ps_init(&s->e, sizeof(struct ct_entry));
		th->view_aux = s;
	}
	return th->view_aux;
}

void **calltree_thread_user(struct trace_thread *th)
{
	return &thread_of(th)->user;
}

/* A forked child's calls nest under the frames it inherited from its
 * parent (open there when it forked), as replay and the filters have them:
 * its stack starts with that path, borrowed (never ended nor counted here:
 * their returns are orphans) */
static void inherit_path(struct calltree_build *b, struct trace_thread *th, struct ct_thread *s)
{
	const struct trace_frame_ref *in;
	size_t n = trace_inherited(b->v->trace, th, &in);
	for (size_t i = 0; i < n; i++) {
		struct ct_entry *top = ps_top(&s->e), *e;
		uint32_t node = CT_NONE;
		uint8_t folded = 0;
		if (!calls_inherited_shown(th, i))
			continue;       /* hidden by the filters, or returned */
		if (b->mode == CT_ALL)
			node = child_of(b, top ? top->node : 0, in[i].func, &folded);
		else if (b->mode == CT_UNDER && top && top->node != CT_NONE)
			node = child_of(b, top->node, in[i].func, &folded);
		else if (b->mode == CT_UNDER && b->anchor(b->anchor_ctx, in[i].func))
			node = calltree_child(b->tree, 0, in[i].func);
		uint32_t run = top && top->func == in[i].func ? top->run : (uint32_t)s->e.n;
		e = ps_push(&s->e);
		e->run = run;
		e->func = in[i].func;
		e->node = node;
		e->anchor = 0;
		e->folded = folded;
		e->borrowed = 2;
	}
}

static void inherit_once(struct calltree_build *b, struct trace_thread *th, struct ct_thread *s)
{
	if (!s->inherit_done) {
		s->inherit_done = 1;
		if (th->start_depth > 0 && !s->e.n)
			inherit_path(b, th, s);
	}
}

/* the return of a frame whose entry is not in this process's trace: an
 * inherited frame left (the child returning from fork(), then from the
 * function that called it) */
static void on_orphan(void *ctx, struct trace_thread *th, const struct trace_event *ev, int depth,
		      enum call_orphan why)
{
	struct calltree_build *b = ctx;
	struct ct_thread *s = thread_of(th);
	inherit_once(b, th, s);
	size_t i = s->e.n;
	while (why != ORPHAN_MOVED && i > 0 && ((struct ct_entry *)ps_at(&s->e, i - 1))->borrowed == 2) {
		if (((struct ct_entry *)ps_at(&s->e, i - 1))->func == ev->func) {
			while (s->e.n >= i)
				ps_pop(&s->e);
			break;
		}
		i--;
	}
	if (b->next && b->next->orphan)
		b->next->orphan(b->next_ctx, th, ev, depth, why);
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	struct calltree_build *b = ctx;
	struct ct_thread *s = thread_of(th);
	struct ct_entry *e;
	uint32_t node = CT_NONE;
	uint8_t anchor = 0, folded = 0;

	inherit_once(b, th, s);

	struct ct_entry *top = ps_top(&s->e);
	uint32_t top_node = top ? top->node : CT_NONE, top_func = top ? top->func : CT_NONE;
	uint32_t top_run = top ? top->run : 0;
	switch (b->mode) {
	case CT_ALL:
		node = child_of(b, top ? top_node : 0, f->func, &folded);
		break;
	case CT_UNDER:
		if (top && top_node != CT_NONE)
			node = child_of(b, top_node, f->func, &folded);
		else if (b->anchor(b->anchor_ctx, f->func)) {
			node = calltree_child(b->tree, 0, f->func);
			b->anchored++;
		}
		break;
	case CT_CALLERS:
		if (b->anchor(b->anchor_ctx, f->func)) {
			/* up the callers; a run of frames of one function is one
			 * step when collapsing (and the anchor's own run too) */
			size_t i = s->e.n;
			if (!b->no_collapse && top && top_func == f->func)
				i = top_run;
			node = calltree_child(b->tree, 0, f->func);
			b->tree->n[node].open++;
			while (i > 0) {
				struct ct_entry *up = ps_at(&s->e, i - 1);
				if (b->tree->n[node].depth + 2 >= CT_MAX_DEPTH) {
					node = calltree_child(b->tree, node, CT_DEEP);
					b->tree->n[node].open++;
					break;
				}
				node = calltree_child(b->tree, node, up->func);
				b->tree->n[node].open++;
				i = b->no_collapse ? i - 1 : up->run;
			}
			anchor = 1;
			b->anchored++;
		}
		break;
	}
	uint32_t run = top && top_func == f->func ? top_run : (uint32_t)s->e.n;
	e = ps_push(&s->e);
	e->run = run;
	e->func = f->func;
	e->node = node;
	e->anchor = anchor;
	e->folded = folded;
	e->borrowed = 0;
	if (b->next && b->next->begin)
		b->next->begin(b->next_ctx, th, f);
}

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct calltree_build *b = ctx;
	struct ct_thread *s = thread_of(th);
	uint64_t dur = end_ns > f->start_ns ? end_ns - f->start_ns : 0;
	uint64_t self = dur > f->child_ns ? dur - f->child_ns : 0;

	if (s->e.n && !((struct ct_entry *)ps_top(&s->e))->borrowed) {
		struct ct_entry *e = ps_top(&s->e);
		ps_pop(&s->e);       /* e stays valid until the next push */
		if (b->mode != CT_CALLERS) {
			if (e->node != CT_NONE) {
				struct ct_node *n = &b->tree->n[e->node];
				n->calls++;
				if (e->folded)
					n->rec_calls++;
				else
					n->total += dur;
				n->self += self;
			}
		} else if (e->anchor) {
			uint32_t i = e->node;
			while (i != CT_NONE && i != 0) {
				struct ct_node *n = &b->tree->n[i];
				n->calls++;
				if (!--n->open)
					n->total += dur;
				n->self += self;
				i = n->parent;
			}
		}
	}
	if (b->next && b->next->end)
		b->next->end(b->next_ctx, th, f, end_ns, how);
}

static void on_switched(void *ctx, struct trace_thread *th, uint64_t from, uint64_t to)
{
	struct calltree_build *b = ctx;
	struct ct_thread *s = thread_of(th);
	struct ct_parked *slot = NULL;
	for (size_t i = 0; i < s->n_parked && !slot; i++)
		if (s->parked[i].id == to)
			slot = &s->parked[i];
	/* a stack with no call of its own open is entered anew (a handler's
	 * sigaltstack, at each signal): its calls nest under the path it is
	 * entered from now, not the one of its first entry (a handler that
	 * once interrupted leaf() put every later one's calls under leaf) */
	int anew = !slot;
	if (slot) {
		anew = 1;
		for (size_t i = 0; i < slot->e.n && anew; i++)
			anew = ((struct ct_entry *)ps_at(&slot->e, i))->borrowed;
		if (anew) {
			ps_free(&slot->e);
			slot->id = to;
		}
	} else {
		s->parked = xrealloc(s->parked, (s->n_parked + 1) * sizeof(*s->parked));
		slot = &s->parked[s->n_parked++];
		slot->id = to;
	}
	if (anew) {
		ps_init(&slot->e, sizeof(struct ct_entry));
		for (size_t i = 0; i < s->e.n; i++) {
			struct ct_entry *e = ps_push(&slot->e);
			*e = *(struct ct_entry *)ps_at(&s->e, i);
			e->borrowed = 1;
			e->anchor = 0;
		}
	}
	struct pstack cur = s->e;
	s->e = slot->e;
	slot->e = cur;
	slot->id = from;
	if (b->next && b->next->switched)
		b->next->switched(b->next_ctx, th, from, to);
}

static void on_lost(void *ctx, struct trace_thread *th, uint64_t count, uint64_t ns)
{
	struct calltree_build *b = ctx;
	if (b->next && b->next->lost)
		b->next->lost(b->next_ctx, th, count, ns);
}

static void on_mark(void *ctx, struct trace_thread *th, const char *text, size_t len, uint64_t ns, int depth)
{
	struct calltree_build *b = ctx;
	if (b->next && b->next->mark)
		b->next->mark(b->next_ctx, th, text, len, ns, depth);
}

int calltree_build(struct view *v, struct calltree_build *b)
{
	static const struct calls_ops ops = { .begin = on_begin, .end = on_end, .orphan = on_orphan, .lost = on_lost,
					      .mark = on_mark, .switched = on_switched };
	struct trace *t = v->trace;
	b->v = v;
	int ret = calls_walk(v, 0, &ops, b, 0);

	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct ct_thread *s = t->procs[i].threads[k].view_aux;
			if (!s)
				continue;
			ps_free(&s->e);
			for (size_t j = 0; j < s->n_parked; j++)
				ps_free(&s->parked[j].e);
			free(s->parked);
			free(s);
			t->procs[i].threads[k].view_aux = NULL;
		}
	return ret;
}
