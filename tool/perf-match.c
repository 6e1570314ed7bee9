/*
 * perf-match.c - matching perf's samples to the calls open in their thread
 * (perf-match.h).
 *
 * Times: perf must record with -k mono (CLOCK_MONOTONIC), the clock the
 * reader converts the trace's times to (trace ns + t0_mono).  The two clocks
 * are read at different moments (the trace's around each event, perf's in
 * the sample's interrupt), so a sample within the window of a call's entry
 * or exit could belong to either side: every state of the thread's stack in
 * that window is tried, and the chain decides (perf-chain.c: the frame just
 * inside the first swapped one must lie in the open call whose return
 * address that is, and there must be no more swapped frames than open
 * calls).  The state at the sample's very time wins; otherwise the fitting
 * states must all give the same frames, or the sample is left as it was.
 *
 * The walk is per thread (calls layer, all frames), each thread's samples
 * sorted by time beside it: one pass over the trace, whatever the number of
 * samples.
 */
#include <stdlib.h>
#include <string.h>
#include "tool/perf-match.h"

struct pm_thread {                  /* th->view_aux */
	struct pc_call *stack;      /* its open calls, outermost first, as pc_fit takes them */
	uint64_t *key;              /* key[i]: what stack[0..i] are (functions, call sites), hashed */
	size_t n, cap;
	uint64_t since;             /* CLOCK_MONOTONIC ns of the stack's last change */
	size_t lo, end;             /* its samples: order[lo..end) */
};

struct func_info {
	int done;
	const char *name, *dso;
	uint32_t file;              /* trace file + 1, 0: none */
	uint64_t start, size;
	/* a library call's target (open_call), for its last process and slot */
	const struct trace_process *lib_proc;
	uint64_t lib_slot;
	const char *target_dso;
	uint64_t target_start, target_size;
};

struct perf_match {
	struct view *v;
	const struct pc_sample *samples;
	size_t n_samples;
	size_t *order;              /* sample indices by (tid, time) */
	struct pc_match *match;
	pc_render_fn render;
	uint64_t window;
	struct func_info *fi;
	size_t n_fi;
	struct pm_thread **threads; /* to free */
	size_t n_threads;
};

static struct perf_match *sort_pm;

static int cmp_order(const void *a, const void *b)
{
	const struct pc_sample *x = &sort_pm->samples[*(const size_t *)a], *y = &sort_pm->samples[*(const size_t *)b];
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return 0;
}

static struct func_info *func_info(struct perf_match *pm, uint32_t func)
{
	struct view *v = pm->v;
	if (func >= pm->n_fi) {
		size_t n = v->trace->n_funcs > func ? v->trace->n_funcs : func + 1;
		pm->fi = xrealloc(pm->fi, n * sizeof(*pm->fi));
		memset(pm->fi + pm->n_fi, 0, (n - pm->n_fi) * sizeof(*pm->fi));
		pm->n_fi = n;
	}
	struct func_info *fi = &pm->fi[func];
	if (!fi->done) {
		const struct trace_func *f = &v->trace->funcs[func];
		struct sym_func sf;
		fi->done = 1;
		fi->name = view_name(v, func);
		fi->dso = f->file == TRACE_NO_FILE ? NULL : v->trace->files[f->file].path;
		fi->file = f->file == TRACE_NO_FILE ? 0 : f->file + 1;
		fi->start = f->vaddr;
		if (view_addr_sym(v, f->file, f->vaddr, &sf) == 0 && sf.start == f->vaddr)
			fi->size = sf.size;
	}
	return fi;
}

/* an entered call as pc_fit wants it: its function, and the frame its
 * return address stands for (the call site when recorded, else the entry
 * of the traced call it was made from: up, NULL for the outermost) */
static struct pc_call open_call(struct perf_match *pm, const struct trace_thread *th, const struct frame *f,
			        const struct pc_call *up)
{
	struct view *v = pm->v;
	struct func_info *fi = func_info(pm, f->func);
	struct pc_call c = { .name = fi->name, .dso = fi->dso ? fi->dso : "[unknown]", .file = fi->file, .start = fi->start,
			     .size = fi->size, .addr = f->addr };
	struct sym_func sf;
	uint64_t target;
	const struct trace_module *m;

	if (!c.size && th->proc->n_libcalls) {
		/* a library call: the code its slot led to (looked up once per
		 * process and slot, not at every call) */
		if (fi->lib_proc != th->proc || fi->lib_slot != f->addr) {
			fi->lib_proc = th->proc;
			fi->lib_slot = f->addr;
			fi->target_dso = NULL;
			fi->target_start = fi->target_size = 0;
			if ((target = trace_libcall_target(th->proc, f->addr)) &&
			    (m = trace_module_at(th->proc, target, f->start_ns)) &&
			    view_addr_sym(v, m->file, target - m->bias, &sf) == 0 && sf.size) {
				fi->target_dso = v->trace->files[m->file].path;
				fi->target_start = sf.start;
				fi->target_size = sf.size;
			}
		}
		c.target_dso = fi->target_dso;
		c.target_start = fi->target_start;
		c.target_size = fi->target_size;
	}
	if (f->callsite && f->callsite_file != TRACE_NO_FILE) {
		/* a return address: named by the call before it */
		view_addr_sym(v, f->callsite_file, f->callsite_vaddr - 1, &sf);
		c.caller = sf.short_name ? sf.short_name : sf.name;
		c.caller_dso = v->trace->files[f->callsite_file].path;
		c.caller_addr = f->callsite_vaddr;
		c.caller_off = f->callsite_vaddr - sf.start;
	} else if (up) {
		c.caller = up->name;
		c.caller_dso = up->dso;
		c.caller_addr = up->start;
		c.ret = up->addr;
	}
	if (f->callsite) {
		c.ret = f->callsite;
		c.ret_exact = 1;
	}
	return c;
}

/* the thread's stack has been as it is from st->since to upto: try it on
 * the thread's samples within the window of that */
static void advance(struct perf_match *pm, struct pm_thread *st, uint64_t upto)
{
	uint64_t since = st->since;

	st->since = upto;
	if (!st->n)
		return;
	while (st->lo < st->end && pm->samples[pm->order[st->lo]].ns + pm->window < since)
		st->lo++;
	for (size_t j = st->lo; j < st->end; j++) {
		size_t idx = pm->order[j];
		const struct pc_sample *s = &pm->samples[idx];
		if (s->ns > upto && s->ns - upto > pm->window)
			break;
		if (pc_match_state_by(&pm->match[idx], pm->render, s, st->stack, st->n, st->key[st->n - 1], since,
				      upto))
			die("out of memory");
	}
}

static struct pm_thread *thread_state(struct perf_match *pm, struct trace_thread *th)
{
	struct pm_thread *st = th->view_aux;
	if (st)
		return st;
	st = xcalloc(1, sizeof(*st));
	th->view_aux = st;
	pm->threads = xrealloc(pm->threads, (pm->n_threads + 1) * sizeof(*pm->threads));
	pm->threads[pm->n_threads++] = st;
	/* its samples: the run of its tid in order[] */
	size_t lo = 0, hi = pm->n_samples;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pm->samples[pm->order[mid]].tid < th->tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	st->lo = st->end = lo;
	while (st->end < pm->n_samples && pm->samples[pm->order[st->end]].tid == th->tid)
		st->end++;
	return st;
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	struct perf_match *pm = ctx;
	struct pm_thread *st = thread_state(pm, th);
	advance(pm, st, pm->v->trace->t0_mono + f->start_ns);
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 64;
		st->stack = xrealloc(st->stack, st->cap * sizeof(*st->stack));
		st->key = xrealloc(st->key, st->cap * sizeof(*st->key));
	}
	st->stack[st->n] = open_call(pm, th, f, st->n ? &st->stack[st->n - 1] : NULL);
	st->key[st->n] = pc_key(pc_key(st->n ? st->key[st->n - 1] : 0, f->func), f->callsite);
	st->n++;
}

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct perf_match *pm = ctx;
	struct pm_thread *st = thread_state(pm, th);
	(void)f;
	(void)how;
	advance(pm, st, pm->v->trace->t0_mono + end_ns);
	if (st->n)
		st->n--;
}

void perf_match_walk(struct view *v, const struct pc_sample *samples, size_t n, uint64_t window,
		     pc_render_fn render, struct pc_match *match)
{
	static const struct calls_ops ops = { .begin = on_begin, .end = on_end };
	struct perf_match pm = { .v = v, .samples = samples, .n_samples = n, .match = match, .render = render,
				 .window = window };

	pm.order = xmalloc((n + 1) * sizeof(*pm.order));
	for (size_t i = 0; i < n; i++)
		pm.order[i] = i;
	sort_pm = &pm;
	qsort(pm.order, n, sizeof(*pm.order), cmp_order);
	sort_pm = NULL;
	calls_walk(v, 0, &ops, &pm, 1);      /* a thread's last frames end with its stream: no state left */
	for (size_t i = 0; i < pm.n_threads; i++) {
		free(pm.threads[i]->stack);
		free(pm.threads[i]->key);
		free(pm.threads[i]);
	}
	for (size_t i = 0; i < v->trace->n_procs; i++)
		for (size_t k = 0; k < v->trace->procs[i].n_threads; k++)
			v->trace->procs[i].threads[k].view_aux = NULL;
	free(pm.threads);
	free(pm.order);
	free(pm.fi);
}
