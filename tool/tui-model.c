/*
 * tui-model.c - the models of `fntrace tui`, built in one streaming pass:
 * the call tree merged by path (calltree.c, the same as `graph`), the
 * per-function profile (the same sums as `report`: inclusive time counted
 * for the outermost activation only) and, per thread, how many replay
 * lines it has and which functions it called.  Memory grows with distinct
 * paths and functions, never with events.
 */
#include <stdlib.h>
#include <string.h>
#include "tool/tui.h"

struct model_thread {            /* per trace thread during the build */
	struct tui_thread *t;
	uint32_t *active;        /* open activations per function (recursion) */
	size_t cap;
	int pending;             /* the last line event was a begin: its line is not decided yet */
};

struct model_build {
	struct tui_model *m;
	struct model_thread **all;
	size_t n_all;
};

static struct model_thread *state_of(struct model_build *b, struct trace_thread *th)
{
	void **user = calltree_thread_user(th);
	if (!*user) {
		struct model_thread *s = xcalloc(1, sizeof(*s));
		for (size_t i = 0; i < b->m->n_threads; i++)
			if (b->m->threads[i].th == th)
				s->t = &b->m->threads[i];
		b->all = xrealloc(b->all, (b->n_all + 1) * sizeof(*b->all));
		b->all[b->n_all++] = s;
		*user = s;
	}
	return *user;
}

static void *grow_zero(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	p = xrealloc(p, n * elem);
	memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
	*cap = n;
	return p;
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	struct model_build *b = ctx;
	struct tui_model *m = b->m;
	struct model_thread *s = state_of(b, th);

	if (f->func >= m->n_fs)
		m->fs = grow_zero(m->fs, &m->n_fs, (size_t)f->func + 1, sizeof(*m->fs));
	m->fs[f->func].calls++;
	m->calls++;
	if (f->func >= s->cap)
		s->active = grow_zero(s->active, &s->cap, (size_t)f->func + 1, sizeof(*s->active));
	s->active[f->func]++;
	if (s->t) {
		if (f->func / 8 >= s->t->n_funcs)
			s->t->funcs = grow_zero(s->t->funcs, &s->t->n_funcs, f->func / 8 + 1, 1);
		s->t->funcs[f->func / 8] |= (uint8_t)(1u << (f->func % 8));
		s->t->lines += s->pending;     /* the caller's line opens: "f() {" */
	}
	s->pending = 1;
}

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct model_build *b = ctx;
	struct model_thread *s = state_of(b, th);
	struct tui_fstat *st = &b->m->fs[f->func];
	uint64_t dur = end_ns > f->start_ns ? end_ns - f->start_ns : 0;

	(void)how;
	if (!st->timed || dur < st->min)
		st->min = dur;
	if (dur > st->max)
		st->max = dur;
	st->timed++;
	st->sum += dur;
	st->self += dur > f->child_ns ? dur - f->child_ns : 0;
	if (!--s->active[f->func])
		st->total += dur;
	if (s->t)
		s->t->lines++;              /* its leaf or closing line */
	s->pending = 0;
}

/* a mark or a loss is a line of its own; the call it falls in opens */
static void on_note(struct model_build *b, struct trace_thread *th)
{
	struct model_thread *s = state_of(b, th);
	if (s->t)
		s->t->lines += s->pending + 1;
	s->pending = 0;
}

static void on_mark(void *ctx, struct trace_thread *th, const char *text, size_t len, uint64_t ns, int depth)
{
	(void)text, (void)len, (void)ns, (void)depth;
	on_note(ctx, th);
}

static void on_lost(void *ctx, struct trace_thread *th, uint64_t count, uint64_t ns)
{
	(void)count, (void)ns;
	on_note(ctx, th);
}

int tui_model_build(struct tui_model *m, struct view *v)
{
	static const struct calls_ops ops = { .begin = on_begin, .end = on_end, .lost = on_lost, .mark = on_mark };
	struct trace *t = v->trace;
	struct model_build b = { .m = m };
	struct calltree_build cb = { .tree = &m->tree, .mode = CT_ALL, .next = &ops, .next_ctx = &b };
	int ret;

	memset(m, 0, sizeof(*m));
	m->v = v;
	calltree_init(&m->tree);
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++)
			if (t->procs[i].threads[k].selected) {
				m->threads = xrealloc(m->threads, (m->n_threads + 1) * sizeof(*m->threads));
				memset(&m->threads[m->n_threads], 0, sizeof(*m->threads));
				m->threads[m->n_threads++].th = &t->procs[i].threads[k];
			}
	ret = calltree_build(v, &cb);
	for (size_t i = 0; i < b.n_all; i++) {
		free(b.all[i]->active);
		free(b.all[i]);
	}
	free(b.all);
	return ret;
}

void tui_model_release(struct tui_model *m)
{
	calltree_release(&m->tree);
	free(m->fs);
	for (size_t i = 0; i < m->n_threads; i++)
		free(m->threads[i].funcs);
	free(m->threads);
	memset(m, 0, sizeof(*m));
}

int tui_thread_has(const struct tui_thread *t, uint32_t func)
{
	return func / 8 < t->n_funcs && (t->funcs[func / 8] >> (func % 8) & 1);
}
