/*
 * cmd-report.c - `fntrace report`: the flat per-function profile.
 *
 * Inclusive (total) time is added only when the outermost activation of a
 * function on its machine stack returns, so recursion is never counted
 * twice (a suspended coroutine's calls are on another stack); self time is the
 * call's time minus its callees'.  Calls that never returned (a crash,
 * exit(), exec) count until their thread's last event.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "format/ghosts.h"
#include "tool/outbuf.h"
#include "tool/framestack.h"
#include "tool/tool.h"

static const char report_usage[] =
	"usage: fntrace report [options]\n\n"
	"Per-function profile: calls, total (inclusive) time, self time, average,\n"
	"minimum and maximum time per call.\n\n"
	"  -d, --data DIR         trace directory (default: fntrace.data)\n"
	"  -s, --sort KEY         total (default), self, calls, avg, max, min or name\n"
	"      --threads          one table per thread\n"
	"      --diff BASE        compare with the trace BASE (another run): calls,\n"
	"                         total and self time of each in both, the change and\n"
	"                         its percent, largest change first\n"
	"  -f, --format FMT       text (default), csv or json\n"
	FILTER_HELP
	TRIGGER_HELP
	"  -D, --depth N          only the first N levels\n"
	"  -t, --time-filter TIME only calls that took at least TIME (5us, 1ms); the\n"
	"                         time of shorter ones counts as their caller's own\n"
	TIME_RANGE_HELP
	"      --debug-dir DIR    also look for debug files under DIR\n"
	"      --prefix-map OLD=NEW  read module files from NEW where OLD was recorded\n"
	"      --no-demangle      keep C++ names mangled\n"
	"      --demangle MODE    C++ names: short (default), full, simple or no\n"
	PAGER_HELP
	"  -h, --help             this help\n\n"
	"csv columns: function,calls,total_ns,self_ns,avg_ns,min_ns,max_ns,signature,\n"
	"module,file (with --threads a tid column first); json: {\"functions\": [{...}]}.\n"
	"Rows of different functions with one name (overloads, static functions in\n"
	"several files) are told apart in text: n::f(int) / n::f(double), f [a.c].\n"
	"With --diff: function,calls,base_calls,total_ns,base_total_ns,self_ns,\n"
	"base_self_ns,avg_ns,base_avg_ns,module.\n";

struct fstat {
	uint64_t calls, timed, total, self, min, max;
	uint64_t sum;            /* of each call's inclusive time: the average's numerator */
	uint32_t func;
};

/* per-thread: how many activations of each function are open on that
 * thread's stack (recursion detection must not mix threads) */
struct active {
	uint32_t *n;
	size_t cap;
};

struct table {
	struct fstat *s;
	size_t n;
};

/* A call open on a thread's stack (the unfiltered path's own call layer):
 * 16 bytes, and the stack is a pstack (framestack.h) whose deep pages go
 * to a temporary file, so 10 M open calls fit in 64 MB.  Exits are matched
 * by function id, which stands for one address within a thread's module
 * map (calls.c matches by address; the two agree).
 *
 * A call's time in its callees is not kept per call: the thread keeps
 * `g`, which each closing call sets to its g at entry plus its duration,
 * so that when a call closes, g minus its g at entry is exactly the sum of
 * its direct callees' durations (each one's closing restored g to the
 * value at its entry, plus itself).  A call keeps its start and its g at
 * entry, 48 bits each (modulo 2^48 ns: a duration up to 2^47 ns, 39
 * hours, is exact), and its function id split across the two top halves. */
#define OC_BITS 48
#define OC_MASK ((1ull << OC_BITS) - 1)
struct open_call {
	uint64_t start;          /* start_ns mod 2^48 | func's low 16 bits << 48 */
	uint64_t g;              /* the thread's g at entry mod 2^48 | func's high 16 bits << 48 */
};
_Static_assert(sizeof(struct open_call) == 16, "an open call is 16 bytes");

static inline uint32_t oc_func(const struct open_call *c)
{
	return (uint32_t)(c->start >> OC_BITS) | (uint32_t)(c->g >> OC_BITS) << 16;
}

/* b - a for two times mod 2^48: 0 when b is earlier (a clock that went back) */
static inline uint64_t oc_since(uint64_t a, uint64_t b)
{
	uint64_t d = (b - a) & OC_MASK;
	return d >> (OC_BITS - 1) ? 0 : d;
}

struct thread_data {
	struct table table;      /* with --threads */
	struct active active;
	struct pstack stack;     /* unfiltered path only: its open calls */
	uint64_t g;              /* see struct open_call */
	int stack_init;
	struct ghosts gh;        /* calls the runtime still counts open that were closed here (format/ghosts.h) */
	struct parked_calls {    /* coroutines: the calls open on the other machine stacks */
		uint64_t id;
		struct pstack stack;
		uint64_t g;
		int owed;
		struct ghosts gh;
	} *parked;
	size_t n_parked;
	uint64_t cur;            /* the machine stack of `stack` (0: the thread's own) */
	int owed;                /* fibers: its calls entered on another thread (calls.c's switch_in) */
	size_t next_out, next_in;   /* fibers: the thread's moves not applied yet */
};

struct report {
	struct view *v;
	struct table all;
	int threads;
};

static struct fstat *get(struct table *t, uint32_t func)
{
	if (func >= t->n) {
		size_t n = t->n ? t->n : 256;
		while (n <= func)
			n *= 2;
		t->s = xrealloc(t->s, n * sizeof(*t->s));
		memset(t->s + t->n, 0, (n - t->n) * sizeof(*t->s));
		t->n = n;
	}
	return &t->s[func];
}

static struct thread_data *data_of(struct trace_thread *th)
{
	if (!th->view_aux)
		th->view_aux = xcalloc(1, sizeof(struct thread_data));
	return th->view_aux;
}

static uint32_t *active_of(struct thread_data *d, uint32_t func)
{
	if (func >= d->active.cap) {
		size_t n = d->active.cap ? d->active.cap : 256;
		while (n <= func)
			n *= 2;
		d->active.n = xrealloc(d->active.n, n * sizeof(*d->active.n));
		memset(d->active.n + d->active.cap, 0, (n - d->active.cap) * sizeof(*d->active.n));
		d->active.cap = n;
	}
	return &d->active.n[func];
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	struct report *r = ctx;
	struct thread_data *d = data_of(th);
	struct fstat *s = get(r->threads ? &d->table : &r->all, f->func);
	s->calls++;
	(*active_of(d, f->func))++;
}

/* one finished call: its inclusive time dur, of which child_ns in callees;
 * outermost: no other activation of the function is open on its thread */
static inline void fstat_add(struct fstat *s, uint64_t dur, uint64_t child_ns, int outermost)
{
	if (!s->timed || dur < s->min)
		s->min = dur;
	if (dur > s->max)
		s->max = dur;
	s->timed++;
	s->sum += dur;
	s->self += dur > child_ns ? dur - child_ns : 0;
	if (outermost)
		s->total += dur;
}

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct report *r = ctx;
	struct thread_data *d = data_of(th);
	struct fstat *s = get(r->threads ? &d->table : &r->all, f->func);
	uint64_t dur = end_ns > f->start_ns ? end_ns - f->start_ns : 0;
	uint32_t *active = active_of(d, f->func);
	(*active)--;
	/* a call that never returned (crash, exit, exec) counts up to its
	 * thread's last event: a lower bound, and its callers include it */
	(void)how;
	fstat_add(s, dur, f->child_ns, !*active);
}

/* a suspended coroutine's calls are not open on the stack the thread
 * runs: a call of the same function there is an outermost one (a
 * thousand coroutines parked in the same function are not a recursion) */
static void on_suspend(void *ctx, struct trace_thread *th, const struct frame *f, int resumed, uint64_t ns)
{
	(void)ctx, (void)ns;
	uint32_t *active = active_of(data_of(th), f->func);
	*active += resumed ? 1 : (uint32_t)-1;
}

/* the mean of each call's inclusive time (with recursion the total counts
 * the outermost calls only, so total/calls would fall below min) */
static uint64_t avg(const struct fstat *s)
{
	return mean_ns(s->sum, s->timed);
}

/* ---- the unfiltered report: the call layer's matching folded into the
 * statistics, a batch of events at a time.  It must agree with calls.c +
 * on_begin/on_end exactly: exits match by address, an exit deeper in the
 * stack closes the calls above it (unwound), an exit with no entry is
 * ignored, UNWIND closes n calls, a thread's end closes the rest. ---- */

static void table_reserve(struct table *t, size_t n)
{
	if (n > t->n)
		get(t, (uint32_t)(n - 1));
}

static void active_reserve(struct thread_data *d, size_t n)
{
	if (n > d->active.cap)
		active_of(d, (uint32_t)(n - 1));
}

/* close the innermost open call at ns */
static inline void close_call(struct fstat *tab, uint32_t *active, struct thread_data *d, uint64_t ns)
{
	struct open_call *c = ps_at_fast(&d->stack, d->stack.n - 1);
	uint32_t func = oc_func(c);
	uint64_t dur = oc_since(c->start & OC_MASK, ns & OC_MASK);
	uint64_t child = oc_since(c->g & OC_MASK, d->g & OC_MASK);
	d->g = (c->g + dur) & OC_MASK;
	ps_pop_fast(&d->stack);
	fstat_add(&tab[func], dur, child, !--active[func]);
}

/* the open calls of the stack in use count as active, or no longer (as
 * on_suspend) */
static void stack_active(struct thread_data *d, uint32_t delta)
{
	for (size_t i = 0; i < d->stack.n; i++)
		d->active.n[oc_func(ps_at(&d->stack, i))] += delta;
}

/* as calls.c's switch_stack: park the open calls, take out the other stack's */
static void fast_switch(struct thread_data *d, uint64_t id)
{
	struct parked_calls *slot = NULL;
	if (id == d->cur)
		return;
	for (size_t i = 0; i < d->n_parked; i++)
		if (d->parked[i].id == id)
			slot = &d->parked[i];
	if (!slot) {
		d->parked = xrealloc(d->parked, (d->n_parked + 1) * sizeof(*d->parked));
		slot = &d->parked[d->n_parked++];
		*slot = (struct parked_calls){ .id = id };
		ps_init(&slot->stack, sizeof(struct open_call));
	}
	stack_active(d, (uint32_t)-1);
	struct parked_calls cur = { d->cur, d->stack, d->g, d->owed, d->gh };
	d->stack = slot->stack;
	d->g = slot->g;
	d->owed = slot->owed;
	d->gh = slot->gh;
	d->cur = id;
	*slot = cur;
	stack_active(d, 1);
}

/* as calls.c's move_out: another thread took a stack over, the calls
 * left open on it end at that time */
static void fast_moves_out(struct fstat *tab, uint32_t *active, struct thread_data *d, struct trace_thread *th,
			   uint64_t ns)
{
	while (d->next_out < th->n_moves_out && th->moves_out[d->next_out]->ns <= ns) {
		const struct trace_stack_move *m = th->moves_out[d->next_out++];
		uint64_t back = d->cur;
		size_t i = 0;
		while (i < d->n_parked && d->parked[i].id != m->from_stack)
			i++;
		if (back != m->from_stack && i == d->n_parked)
			continue;
		if (back != m->from_stack)      /* (else the stack it is on: left unseen) */
			fast_switch(d, m->from_stack);
		while (d->stack.n)
			close_call(tab, active, d, m->ns);
		d->owed = 0;
		if (back != m->from_stack)
			fast_switch(d, back);
	}
}

/* as calls.c's switch_in: a stack taken over from another thread */
static void fast_switch_in(struct thread_data *d, struct trace_thread *th, uint64_t id, uint64_t ns)
{
	const struct trace_stack_move *m = NULL;
	while (d->next_in < th->n_moves_in && th->moves_in[d->next_in]->ns <= ns) {
		const struct trace_stack_move *c = th->moves_in[d->next_in++];
		if (c->stack == id)
			m = c;
	}
	fast_switch(d, id);
	if (m)
		d->owed = (int)m->frames;
}

/* how many open calls up to the innermost one of func (0: none open:
 * active says so without a scan) */
static inline size_t fast_open_upto(struct thread_data *d, const uint32_t *active, uint32_t func)
{
	size_t k = active[func] ? d->stack.n : 0;
	while (k > 0 && oc_func(ps_at_fast(&d->stack, k - 1)) != func)
		k--;
	return k;
}

/* as calls.c's find_parked: an exit that closes another stack's innermost call */
static int fast_find_parked(struct thread_data *d, uint32_t func)
{
	for (size_t i = 0; i < d->n_parked; i++)
		if (d->parked[i].stack.n && oc_func(ps_top(&d->parked[i].stack)) == func &&
		    !stack_hand_pair(d->cur, d->parked[i].id)) {
			fast_switch(d, d->parked[i].id);
			return 1;
		}
	return 0;
}

/* every open call of the thread closed at ns: those of its current stack,
 * then those of the stacks parked, the thread back on its stack after */
static void fast_end_every(struct fstat *tab, uint32_t *active, struct thread_data *d, uint64_t ns)
{
	uint64_t cur = d->cur;
	while (d->stack.n)
		close_call(tab, active, d, ns);
	for (size_t j = 0; j < d->n_parked; j++)
		if (d->parked[j].stack.n) {
			fast_switch(d, d->parked[j].id);
			while (d->stack.n)
				close_call(tab, active, d, ns);
		}
	fast_switch(d, cur);
}

static int fast_batch(void *ctx, const struct trace_event *ev, size_t n)
{
	struct report *r = ctx;
	struct trace_thread *th = ev->thread;
	size_t nf = r->v->trace->n_funcs;   /* every id in this batch is below it */

	if (!th->view_aux) {   /* as on_begin: a thread gets its data (and table) at its first call */
		size_t i = 0;
		while (i < n && ev[i].kind != TRACE_ENTRY)
			i++;
		if (i == n)
			return 0;
	}
	struct thread_data *d = data_of(th);
	struct table *t = r->threads ? &d->table : &r->all;

	if (!d->stack_init) {
		ps_init(&d->stack, sizeof(struct open_call));
		d->stack_init = 1;
	}
	table_reserve(t, nf);
	active_reserve(d, nf);
	struct fstat *tab = t->s;
	uint32_t *active = d->active.n;
	for (size_t i = 0; i < n; i++) {
		const struct trace_event *e = &ev[i];
		if (__builtin_expect(d->next_out < th->n_moves_out, 0) && th->moves_out[d->next_out]->ns <= e->ns)
			fast_moves_out(tab, active, d, th, e->ns);
		if (e->kind == TRACE_ENTRY) {
			if (__builtin_expect(d->gh.n != 0, 0))
				ghosts_settle(&d->gh, d->stack.n);
			struct open_call *c = ps_push_fast(&d->stack);
			c->start = (e->ns & OC_MASK) | (uint64_t)(e->func & 0xffff) << OC_BITS;
			c->g = d->g | (uint64_t)(e->func >> 16) << OC_BITS;
			tab[e->func].calls++;
			active[e->func]++;
		} else if (e->kind == TRACE_EXIT) {
			size_t k = fast_open_upto(d, active, e->func);
			if (!k && d->owed) {     /* entered on another thread */
				while (d->stack.n)
					close_call(tab, active, d, e->ns);
				d->owed--;
				continue;
			}
			if (!k && d->n_parked && fast_find_parked(d, e->func))
				k = d->stack.n;
			if (!k)
				continue;   /* entered before the trace began */
			ghosts_add(&d->gh, k, d->stack.n - k);   /* the calls inside it, unwound */
			while (d->stack.n >= k)
				close_call(tab, active, d, e->ns);
		} else if (e->kind == TRACE_UNWIND) {
			uint64_t below;   /* as calls.c */
			for (size_t k = ghosts_unwind(&d->gh, d->stack.n, e->count, &below); k > 0; k--)
				close_call(tab, active, d, e->ns);
			for (; below && d->owed; below--)
				d->owed--;
		} else if (e->kind == TRACE_UNWIND_TO) {
			/* the calls inside the innermost open call of e->func are gone */
			size_t k = fast_open_upto(d, active, e->func);
			if (k && e->callsite && d->stack.n > k) {     /* inlined calls that hold the catch (calls.c) */
				uint32_t above[16];
				size_t n = 0;
				for (; n < 16 && k + n < d->stack.n; n++)
					above[n] = oc_func(ps_at_fast(&d->stack, k + n));
				k += calls_landing_kept(r->v, e, above, n);
			}
			if (k)
				ghosts_add(&d->gh, k, d->stack.n - k);
			while (k && d->stack.n > k)
				close_call(tab, active, d, e->ns);
		} else if (e->kind == TRACE_GAP) {
			/* chunks missing: the calls open end in the gap, those
			 * of the parked stacks too (calls.c) */
			fast_end_every(tab, active, d, e->ns);
			for (size_t j = 0; j < d->n_parked; j++) {
				d->parked[j].owed = 0;
				d->parked[j].gh.n = 0;
			}
			d->owed = 0;
			d->gh.n = 0;
		} else if (e->kind == TRACE_SWITCH) {
			if (d->next_in < th->n_moves_in)
				fast_switch_in(d, th, e->count, e->ns);
			else
				fast_switch(d, e->count);
		} else if (e->kind == TRACE_THREAD_END || e->kind == TRACE_STREAM_END) {
			fast_moves_out(tab, active, d, th, UINT64_MAX);
			fast_end_every(tab, active, d, e->ns);   /* suspended coroutines too */
		}
	}
	return 0;
}

static int sort_key;
static struct view *sort_view;

static int cmp_stat(const void *a, const void *b)
{
	const struct fstat *x = a, *y = b;
	uint64_t kx, ky;
	switch (sort_key) {
	case 's': kx = x->self, ky = y->self; break;
	case 'c': kx = x->calls, ky = y->calls; break;
	case 'a': kx = avg(x), ky = avg(y); break;
	case 'x': kx = x->max, ky = y->max; break;
	case 'i': kx = x->min, ky = y->min; break;
	case 'n': return strcmp(view_name(sort_view, x->func), view_name(sort_view, y->func));
	default: kx = x->total, ky = y->total; break;
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(view_name(sort_view, x->func), view_name(sort_view, y->func));
}

/* the rows with calls, sorted */
static struct fstat *rows(struct table *t, struct view *v, size_t *n)
{
	struct fstat *r = xmalloc((t->n ? t->n : 1) * sizeof(*r));
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->s[i].calls) {
			r[k] = t->s[i];
			r[k++].func = (uint32_t)i;
		}
	sort_view = v;
	qsort(r, k, sizeof(*r), cmp_stat);
	*n = k;
	return r;
}

/* ---- rows that share a name ---- */

/* the module file of a function, or "" */
static const char *func_module(struct view *v, uint32_t func)
{
	const struct trace_func *f = &v->trace->funcs[func];
	return f->file == TRACE_NO_FILE || f->file >= v->trace->n_files ? "" : v->trace->files[f->file].path;
}

/* Text labels for the rows: a function's displayed name, unless another row
 * shows the same name for a different function (view_labels) */
static char **row_labels(struct view *v, struct fstat *r, size_t n)
{
	uint32_t *funcs = xmalloc((n ? n : 1) * sizeof(*funcs));
	for (size_t i = 0; i < n; i++)
		funcs[i] = r[i].func;
	char **label = view_labels(v, funcs, n);
	free(funcs);
	return label;
}

static void print_text(struct view *v, struct fstat *r, size_t n)
{
	char a[32], b[32], c[32], d[32], e[32];
	char **label = row_labels(v, r, n);
	printf("  Total time   Self time       Calls    Avg time    Min time    Max time  Function\n"
	       "  ==========  ==========  ==========  ==========  ==========  ==========  ========\n");
	for (size_t i = 0; i < n; i++) {
		format_duration_color(a, sizeof(a), r[i].total);
		format_duration_color(b, sizeof(b), r[i].self);
		format_duration_color(c, sizeof(c), avg(&r[i]));
		format_duration_color(d, sizeof(d), r[i].min);
		format_duration_color(e, sizeof(e), r[i].max);
		printf("  %s  %s  %10" PRIu64 "  %s  %s  %s  ", a, b, r[i].calls, c, d, e);
		text_fput(label[i] ? label[i] : view_name(v, r[i].func), stdout);
		putchar('\n');
	}
	view_labels_free(label, n);
}

/* the signature, module and file columns */
static void print_csv_where(struct view *v, uint32_t func)
{
	const char *src = NULL;
	int line;

	csv_fput(stdout, view_full_name(v, func));
	putchar(',');
	csv_fput(stdout, func_module(v, func));
	putchar(',');
	csv_fput(stdout, !view_srcline(v, func, &src, &line) && src ? src : "");
	putchar('\n');
}

static void print_csv_rows(struct view *v, struct fstat *r, size_t n, const struct trace_thread *th)
{
	for (size_t i = 0; i < n; i++) {
		if (th)
			printf("%u,", th->tid);
		csv_fput(stdout, view_name(v, r[i].func));
		printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", r[i].calls,
		       r[i].total, r[i].self, avg(&r[i]), r[i].min, r[i].max);
		print_csv_where(v, r[i].func);
	}
}

static void print_json_rows(struct view *v, struct fstat *r, size_t n)
{
	printf("[");
	for (size_t i = 0; i < n; i++) {
		printf("%s\n    {\"function\": ", i ? "," : "");
		json_fput(stdout, view_name(v, r[i].func), 0);
		printf(", \"full_name\": ");
		json_fput(stdout, view_full_name(v, r[i].func), 0);
		printf(", \"calls\": %" PRIu64 ", \"total_ns\": %" PRIu64 ", \"self_ns\": %" PRIu64
		       ", \"avg_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64,
		       r[i].calls, r[i].total, r[i].self, avg(&r[i]), r[i].min, r[i].max);
		const char *src = NULL;
		int line;
		printf(", \"signature\": ");
		json_fput(stdout, view_full_name(v, r[i].func), 0);
		printf(", \"module\": ");
		json_fput(stdout, func_module(v, r[i].func), 0);
		printf(", \"file\": ");
		json_fput(stdout, !view_srcline(v, r[i].func, &src, &line) && src ? src : "", 0);
		printf("}");
	}
	printf("%s]", n ? "\n  " : "");
}

/* the whole profile of a view into r (r->all, or per thread) */
static void profile(struct view *v, struct report *r)
{
	static const struct calls_ops ops = { .begin = on_begin, .end = on_end, .suspend = on_suspend };
	const struct view_opts *o = v->opts;
	/* the fast path knows no filter: any -F/-N/-D/--since/--until takes the call layer */
	if (o->filter.n || o->notrace.n || o->hide.n || o->callers.n || o->n_triggers || o->max_depth || o->since_ns ||
	    o->has_until || o->min_ns)
		calls_walk(v, 0, &ops, r, 0);
	else
		trace_walk_batch(v->trace, 0, fast_batch, r);
}

static void free_thread_data(struct view *v)
{
	for (size_t i = 0; i < v->trace->n_procs; i++)
		for (size_t k = 0; k < v->trace->procs[i].n_threads; k++) {
			struct thread_data *d = v->trace->procs[i].threads[k].view_aux;
			if (!d)
				continue;
			free(d->table.s);
			free(d->active.n);
			if (d->stack_init)
				ps_free(&d->stack);
			for (size_t j = 0; j < d->n_parked; j++) {
				ps_free(&d->parked[j].stack);
				ghosts_free(&d->parked[j].gh);
			}
			free(d->parked);
			ghosts_free(&d->gh);
			free(d);
			v->trace->procs[i].threads[k].view_aux = NULL;
		}
}

/* a view's profile as rows named by function and module file name: the
 * name as report shows it (the signature, "[file]" where other rows share
 * it), matched with the other trace's by view_match_key; *labels (for
 * prof_rows_free) holds the names */
static struct prof_row *prof_rows(struct view *v, struct report *r, size_t *n, char ***labels)
{
	struct prof_row *out = xcalloc(r->all.n + 1, sizeof(*out));
	uint32_t *funcs = xmalloc((r->all.n + 1) * sizeof(*funcs));
	uint32_t program = view_program_file(v);
	size_t k = 0;
	for (size_t i = 0; i < r->all.n; i++)
		if (r->all.s[i].calls)
			funcs[k++] = (uint32_t)i;
	*labels = view_labels(v, funcs, k);
	for (size_t j = 0; j < k; j++) {
		uint32_t i = funcs[j];
		const struct fstat *f = &r->all.s[i];
		uint32_t file = v->trace->funcs[i].file;
		const char *path = file == TRACE_NO_FILE ? "" : v->trace->files[file].path;
		const char *slash = strrchr(path, '/');
		out[j] = (struct prof_row){ (*labels)[j] ? (*labels)[j] : view_name(v, i), slash ? slash + 1 : path,
					    view_match_key(v, i), file != TRACE_NO_FILE && file == program, f->calls,
					    f->total, f->self, avg(f) };
	}
	free(funcs);
	*n = k;
	return out;
}

static void prof_rows_free(struct prof_row *rows, size_t n, char **labels)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].key);
	free(rows);
	view_labels_free(labels, n);
}

/* report --diff BASE: this trace's profile against BASE's, same options */
static int report_diff_views(struct view *v, struct view_opts *o, const char *base_dir, const char *format)
{
	struct view_opts bo = *o;
	struct view bv;
	struct report r = { .v = v }, br = { .v = &bv };
	size_t n, bn;

	bo.dir = base_dir;
	view_open(&bv, &bo);
	progress_begin(v->trace, "reading the trace", 0);
	profile(v, &r);
	progress_end();
	progress_begin(bv.trace, "reading the base trace", 0);
	profile(&bv, &br);
	progress_end();
	pager_start(o);
	char **labels, **base_labels;
	struct prof_row *now = prof_rows(v, &r, &n, &labels), *base = prof_rows(&bv, &br, &bn, &base_labels);
	report_diff(now, n, base, bn, sort_key, format, o->dir, base_dir);
	fflush(stdout);
	prof_rows_free(now, n, labels);
	prof_rows_free(base, bn, base_labels);
	free_thread_data(v);
	free_thread_data(&bv);
	view_report_problems(v);
	view_report_problems(&bv);
	free(r.all.s);
	free(br.all.s);
	view_close_borrowed(&bv);
	view_close(v);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		VIEW_LONGOPTS, FILTER_LONGOPTS,
		{ "sort", required_argument, NULL, 's' },
		{ "threads", no_argument, NULL, 0x400 },
		{ "diff", required_argument, NULL, 0x402 },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct view_opts o = { 0 };
	struct view v;
	struct report r = { .v = &v };
	const char *format = "text", *diff_dir = NULL;
	int opt, ret = 0;

	sort_key = 't';
	opterr = 0;
	optind = 1;
	while ((opt = fnt_getopt_long(argc, argv, ":d:F:N:H:C:D:t:T:s:f:h", longopts, NULL)) != -1) {
		if (view_opt(&o, opt, optarg))
			continue;
		switch (opt) {
		case 's':
			if (!strcmp(optarg, "total")) sort_key = 't';
			else if (!strcmp(optarg, "self")) sort_key = 's';
			else if (!strcmp(optarg, "calls")) sort_key = 'c';
			else if (!strcmp(optarg, "avg")) sort_key = 'a';
			else if (!strcmp(optarg, "max")) sort_key = 'x';
			else if (!strcmp(optarg, "min")) sort_key = 'i';
			else if (!strcmp(optarg, "name")) sort_key = 'n';
			else {
				/* uftrace's keys */
				static const char *const uf[][2] = {
					{ "call", "calls" }, { "func", "name" }, { "total_avg", "avg" },
					{ "total_min", "min" }, { "total_max", "max" },
				};
				for (size_t k = 0; k < sizeof(uf) / sizeof(*uf); k++)
					if (!strcmp(optarg, uf[k][0]))
						die_usage("option '--sort': uftrace's key '%s' is fntrace's '%s' (fntrace's "
							  "keys: total, self, calls, avg, max, min, name)", optarg, uf[k][1]);
				if (strchr(optarg, ','))
					die_usage("option '--sort' takes one key (total, self, calls, avg, max, min or name), "
						  "not a list: '%s'", optarg);
				die_usage("option '--sort' takes total, self, calls, avg, max, min or name, not '%s'", optarg);
			}
			break;
		case 0x400: r.threads = 1; break;
		case 0x402: diff_dir = optarg; break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "csv") && strcmp(optarg, "json"))
			{
				static const char *const ex[] = { "html", "svg", "folded", "chrome", "perfetto", "speedscope" };
				for (size_t k = 0; k < sizeof(ex) / sizeof(*ex); k++)
					if (!strcmp(optarg, ex[k]))
						die_usage("option '--format' takes text, csv or json, not '%s': for %s use "
							  "'fntrace export -f %s'", optarg, optarg, optarg);
				die_usage("option '--format' takes text, csv or json, not '%s'", optarg);
			}
			format = optarg;
			break;
		case 'h': fputs(report_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (diff_dir && r.threads)
		die_usage("options '--diff' and '--threads' cannot be used together");
	if (diff_dir && strchr("xi", sort_key))
		die_usage("option '--diff' sorts by total, self, calls, avg or name");
	view_open(&v, &o);
	if (diff_dir)
		return report_diff_views(&v, &o, diff_dir, format);
	progress_begin(v.trace, "reading the trace", 0);
	profile(&v, &r);
	progress_end();
	pager_start(&o);
	if (!trace_has_function_events(v.trace)) {
		view_no_events_hint(&v);
		ret = 1;
	}

	int csv = !strcmp(format, "csv"), json = !strcmp(format, "json");
	if (csv)
		printf("%sfunction,calls,total_ns,self_ns,avg_ns,min_ns,max_ns,signature,module,file\n",
		       r.threads ? "tid," : "");
	if (json)
		printf("{\"trace\": ");
	if (json) {
		json_fput(stdout, o.dir, 0);
		printf(",\n  \"%s\": ", r.threads ? "threads" : "functions");
	}
	if (!r.threads) {
		size_t n;
		struct fstat *rs = rows(&r.all, &v, &n);
		if (csv)
			print_csv_rows(&v, rs, n, NULL);
		else if (json)
			print_json_rows(&v, rs, n);
		else
			print_text(&v, rs, n);
		free(rs);
	} else {
		int first = 1;
		if (json)
			printf("[");
		for (size_t i = 0; i < v.trace->n_procs; i++)
			for (size_t k = 0; k < v.trace->procs[i].n_threads; k++) {
				struct trace_thread *th = &v.trace->procs[i].threads[k];
				struct thread_data *d = th->view_aux;
				struct table *t = d ? &d->table : NULL;
				size_t n;
				if (!t)
					continue;
				struct fstat *rs = rows(t, &v, &n);
				if (csv) {
					print_csv_rows(&v, rs, n, th);
				} else if (json) {
					printf("%s\n  {\"pid\": %u, \"tid\": %u, \"name\": ", first ? "" : ",",
					       th->proc->hdr.pid, th->tid);
					json_fput(stdout, th->name, 0);
					printf(", \"functions\": ");
					print_json_rows(&v, rs, n);
					printf("}");
				} else {
					char esc[80];
					printf("%s# thread %u (%s), process %u\n", first ? "" : "\n", th->tid,
					       text_safe(th->name, esc, sizeof(esc)), th->proc->hdr.pid);
					print_text(&v, rs, n);
				}
				first = 0;
				free(rs);
			}
		if (json)
			printf("\n  ]");
	}
	if (json)
		printf("\n}\n");
	fflush(stdout);
	free_thread_data(&v);
	view_report_problems(&v);
	free(r.all.s);
	view_close(&v);
	return ret;
}
