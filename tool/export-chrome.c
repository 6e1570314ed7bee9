/*
 * export-chrome.c - Chrome trace-event JSON (chrome://tracing, Perfetto,
 * speedscope): {"traceEvents": [...], "displayTimeUnit": "ns"}.
 *
 * Every call is a "B" event at its entry and an "E" event at its exit, in
 * the thread's own order, so nesting holds by construction: the call layer
 * closes frames in stack order, and a call that did not return normally
 * still gets its E, marked in its args: "end": "unwound" (longjmp or an
 * exception skipped its exit), "trace ended" (it never returned before its
 * thread's events end: a crash, exit() from inside it), "exec" (the
 * process image was replaced) or "moved to another thread" (a fiber
 * suspended inside it was resumed by another thread).  Its end is then the
 * unwind point, the thread's last event or the move, the same end `report`
 * uses.  Exits without an entry (a forked child returning through its
 * parent's frames, a fiber's call returning on the thread that took the
 * fiber over) are instant events ("ph":"i").
 *
 * Why not complete ("X") events, half as many: they can only be written at
 * the call's end, children before parents, and a viewer that sorts by time
 * (Perfetto's importer) then nests a child above its parent when both start
 * in the same nanosecond, which a 10 ns clock makes common.  B/E pairs in
 * order, with times that never decrease per thread, sort right.
 *
 * ts and dur are microseconds with three decimals: nanoseconds, exactly.
 * Streaming: the threads are walked one after another (the format needs no
 * global time order), the memory is the call stacks plus one output buffer,
 * and each function's JSON (escaped name, file:line) is formatted once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tool/export.h"
#include "tool/outbuf.h"

struct chrome_func {
	char *json;              /* "name":"...","cat":"file:line" */
	uint32_t len;
	uint32_t name_len;       /* of the "name":"..." part */
};

struct chrome_thread {
	char begin[96];          /* ,\n{"ph":"B","pid":P,"tid":T,"ts": */
	size_t begin_len;
	char end[96];            /* the same for "E" */
	size_t end_len;
	char inst[96];           /* and for instant events */
	size_t inst_len;
	uint64_t last_ns;        /* of the thread's last event written */
	/* coroutines: the machine stacks the thread ran on other than its
	 * own, each with a track of its own (a tid no thread has), so that
	 * each track's B and E nest */
	struct chrome_stack {
		uint64_t id;
		uint32_t tid;
	} *stacks;
	size_t n_stacks;
};

/* the synthetic tids of coroutine stacks: above any pid or tid (PID_MAX_LIMIT) */
#define STACK_TID0 (1u << 22)

struct chrome {
	struct view *v;
	struct outbuf ob;
	struct chrome_func *funcs;
	size_t n_funcs;
	char *scratch;           /* escaping room for long names */
	size_t scratch_cap;
	uint32_t next_tid;       /* the next coroutine stack's track */
	struct chrome_track {    /* those tracks, for their names */
		struct trace_thread *th;
		uint64_t stack;
		uint32_t tid;
	} *tracks;
	size_t n_tracks;
};

static char *scratch(struct chrome *c, size_t n)
{
	if (n > c->scratch_cap) {
		c->scratch_cap = n + 4096;
		free(c->scratch);
		c->scratch = xmalloc(c->scratch_cap);
	}
	return c->scratch;
}

/* "<escaped s>" with the quotes */
static void put_jstr(struct chrome *c, const char *s)
{
	size_t n = strlen(s);
	char *p = scratch(c, 6 * n + 2), *e;
	*p = '"';
	e = json_escape(p + 1, s, n);
	*e++ = '"';
	outbuf_put(&c->ob, p, (size_t)(e - p));
}

static struct chrome_func *func_of(struct chrome *c, uint32_t func)
{
	if (func >= c->n_funcs) {
		size_t n = c->n_funcs ? c->n_funcs : 256;
		while (n <= func)
			n *= 2;
		c->funcs = xrealloc(c->funcs, n * sizeof(*c->funcs));
		memset(c->funcs + c->n_funcs, 0, (n - c->n_funcs) * sizeof(*c->funcs));
		c->n_funcs = n;
	}
	struct chrome_func *f = &c->funcs[func];
	if (!f->json) {
		size_t nlen;
		const char *name = view_name_len(c->v, func, &nlen);
		const char *file = NULL;
		int line = 0;
		size_t flen = 0;
		if (!view_srcline(c->v, func, &file, &line))
			flen = strlen(file);
		char *p = xmalloc(6 * (nlen + flen) + 64), *e = p;
		memcpy(e, "\"name\":\"", 8);
		e = json_escape(e + 8, name, nlen);
		*e++ = '"';
		f->name_len = (uint32_t)(e - p);
		if (flen) {
			memcpy(e, ",\"cat\":\"", 8);
			e = json_escape(e + 8, file, flen);
			*e++ = ':';
			e = fmt_u64(e, (uint64_t)line);
			*e++ = '"';
		}
		f->json = p;
		f->len = (uint32_t)(e - p);
	}
	return f;
}

/* the events that follow go to track tid */
static void set_track(struct chrome_thread *t, uint32_t pid, uint32_t tid)
{
	t->begin_len = (size_t)snprintf(t->begin, sizeof(t->begin),
					",\n{\"ph\":\"B\",\"pid\":%u,\"tid\":%u,\"ts\":", pid, tid);
	t->end_len = (size_t)snprintf(t->end, sizeof(t->end),
				      ",\n{\"ph\":\"E\",\"pid\":%u,\"tid\":%u,\"ts\":", pid, tid);
	t->inst_len = (size_t)snprintf(t->inst, sizeof(t->inst),
				       ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,\"tid\":%u,\"ts\":", pid, tid);
}

static struct chrome_thread *thread_of(struct trace_thread *th)
{
	struct chrome_thread *t = th->view_aux;
	if (!t) {
		t = xcalloc(1, sizeof(*t));
		set_track(t, th->proc->hdr.pid, th->tid);
		th->view_aux = t;
	}
	return t;
}

/* coroutines: the thread's events go to the track of stack `to` from now on */
static void on_switched(void *ctx, struct trace_thread *th, uint64_t from, uint64_t to)
{
	struct chrome *c = ctx;
	struct chrome_thread *t = thread_of(th);
	uint32_t tid = th->tid;
	(void)from;
	if (to) {
		size_t k = 0;
		while (k < t->n_stacks && t->stacks[k].id != to)
			k++;
		if (k == t->n_stacks) {
			t->stacks = xrealloc(t->stacks, (k + 1) * sizeof(*t->stacks));
			t->stacks[k] = (struct chrome_stack){ to, c->next_tid++ };
			t->n_stacks++;
			c->tracks = xrealloc(c->tracks, (c->n_tracks + 1) * sizeof(*c->tracks));
			c->tracks[c->n_tracks++] = (struct chrome_track){ th, to, t->stacks[k].tid };
		}
		tid = t->stacks[k].tid;
	}
	set_track(t, th->proc->hdr.pid, tid);
}

/*
 * The per-thread clamp: a thread's events go out in its order with times
 * that never decrease, so sorting by time (as viewers do) keeps every E
 * after its B.  Recorded times only go backwards if the clock did; then the
 * event takes its predecessor's time.
 */
static uint64_t thread_ts(struct chrome_thread *t, uint64_t ns)
{
	if (ns < t->last_ns)
		return t->last_ns;
	t->last_ns = ns;
	return ns;
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	struct chrome *c = ctx;
	struct chrome_thread *t = thread_of(th);
	struct chrome_func *fn = func_of(c, f->func);
	int giant = fn->len > OUTBUF_CAP / 4;        /* a giant name goes through outbuf_put */
	char *p = outbuf_room(&c->ob, t->begin_len + 32 + (giant ? 0 : fn->len + 4)), *s = p;

	memcpy(p, t->begin, t->begin_len);
	p = fmt_us3(p + t->begin_len, thread_ts(t, f->start_ns));
	*p++ = ',';
	if (giant) {
		c->ob.len += (size_t)(p - s);
		outbuf_put(&c->ob, fn->json, fn->len);
		p = s = outbuf_room(&c->ob, 4);
	} else {
		memcpy(p, fn->json, fn->len);
		p += fn->len;
	}
	*p++ = '}';
	c->ob.len += (size_t)(p - s);
}

/* The E event repeats its B's name (speedscope pairs them by name) and
 * carries what the call's B cannot: its argument values, return value and
 * end marker.  B and E of a call without these are the same frame to
 * speedscope, which matters when both fall in one nanosecond. */
static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct chrome *c = ctx;
	struct chrome_thread *t = thread_of(th);
	struct chrome_func *fn = func_of(c, f->func);
	const char *mark = call_end_text(th, how);
	char *p = outbuf_room(&c->ob, t->end_len + 32), *s = p;

	memcpy(p, t->end, t->end_len);
	p = fmt_us3(p + t->end_len, thread_ts(t, end_ns > f->start_ns ? end_ns : f->start_ns));
	*p++ = ',';
	c->ob.len += (size_t)(p - s);
	outbuf_put(&c->ob, fn->json, fn->name_len);

	const char *spec = th->proc->n_argspecs ? trace_argspec(th->proc, f->addr) : NULL;
	char text[2048], esc[6 * 2048 + 32], *e = esc;
	const char *sep = ",\"args\":{";
	size_t n;
	args_where(th->proc, f->start_ns);
	if (spec && (n = args_format(spec, th->proc->hdr.version, f->args, f->args_len, 0, text, sizeof(text))) > 0) {
		/* the recorded arguments: "args":{"args":"12, 18"} */
		e = stpcpy(stpcpy(e, sep), "\"args\":\"");
		e = json_escape(e, text, n);
		*e++ = '"';
		sep = ",";
	}
	if (spec && !mark && (n = args_format(spec, th->proc->hdr.version, f->ret, f->ret_len, 1, text, sizeof(text))) > 0) {
		/* the recorded return value: "retval":"6" */
		e = stpcpy(stpcpy(e, sep), "\"retval\":\"");
		e = json_escape(e, text, n);
		*e++ = '"';
		sep = ",";
	}
	if (mark) {
		e = stpcpy(stpcpy(stpcpy(stpcpy(e, sep), "\"end\":\""), mark), "\"");
		sep = ",";
	}
	if (*sep == ',' && sep[1] == 0)
		*e++ = '}';
	*e++ = '}';
	outbuf_put(&c->ob, esc, (size_t)(e - esc));
}

static void instant(struct chrome *c, struct trace_thread *th, uint64_t ns, const char *name_json, size_t name_len,
		    const char *args)
{
	struct chrome_thread *t = thread_of(th);
	char *p = outbuf_room(&c->ob, t->inst_len + 32), *s = p;
	memcpy(p, t->inst, t->inst_len);
	p = fmt_us3(p + t->inst_len, thread_ts(t, ns));
	*p++ = ',';
	c->ob.len += (size_t)(p - s);
	outbuf_put(&c->ob, name_json, name_len);
	outbuf_puts(&c->ob, args);
}

static void on_orphan(void *ctx, struct trace_thread *th, const struct trace_event *ev, int depth,
		      enum call_orphan why)
{
	struct chrome *c = ctx;
	struct chrome_func *fn = func_of(c, ev->func);
	char text[512], args[160 + 6 * sizeof(text)], *e;
	size_t n = args_orphan_retval(th, ev, text, sizeof(text));
	(void)depth;
	e = stpcpy(args, why == ORPHAN_MOVED ? ",\"args\":{\"end\":\"exit of a call entered on another thread\"" :
			 why == ORPHAN_GAP ? ",\"args\":{\"end\":\"exit of a call entered where trace data is missing\"" :
			 why == ORPHAN_OFF ? ",\"args\":{\"end\":\"exit of a call entered while recording was off\"" :
			 ",\"args\":{\"end\":\"exit without entry\"");
	if (n) {
		e = stpcpy(e, ",\"retval\":\"");
		e = json_escape(e, text, n);
		*e++ = '"';
	}
	strcpy(e, "}}");
	instant(c, th, ev->ns, fn->json, fn->name_len, args);
}

static void on_lost(void *ctx, struct trace_thread *th, uint64_t count, uint64_t ns)
{
	struct chrome *c = ctx;
	char args[96];
	snprintf(args, sizeof(args), ",\"args\":{\"count\":%" PRIu64 "}}", count);
	instant(c, th, ns, "\"name\":\"fntrace: events lost\"", 29, args);
}

/* fnt_mark(): an instant event named by the text, category "mark" */
static void on_mark(void *ctx, struct trace_thread *th, const char *text, size_t len, uint64_t ns, int depth)
{
	struct chrome *c = ctx;
	char *p = scratch(c, 6 * len + 16), *e;
	(void)depth;
	memcpy(p, "\"name\":\"", 8);
	e = json_escape(p + 8, text, len);
	*e++ = '"';
	instant(c, th, ns, p, (size_t)(e - p), ",\"cat\":\"mark\"}");
}

static const char *program_name(const struct trace_process *p)
{
	if (p->argc > 0 && p->argv[0] && *p->argv[0]) {
		const char *b = strrchr(p->argv[0], '/');
		return b && b[1] ? b + 1 : p->argv[0];
	}
	return "process";
}

/* process names first; thread names after the walk, which is when they
 * are final (a thread names itself while it runs) */
static void metadata(struct chrome *c, int threads)
{
	struct trace *t = c->v->trace;
	char buf[128];
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		if (!threads) {
			snprintf(buf, sizeof(buf), "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":%u,"
				 "\"args\":{\"name\":", i ? ",\n" : "", p->hdr.pid, p->hdr.pid);
			outbuf_puts(&c->ob, buf);
			put_jstr(c, program_name(p));
			outbuf_puts(&c->ob, "}}");
			continue;
		}
		for (size_t k = 0; k < p->n_threads; k++) {
			struct trace_thread *th = &p->threads[k];
			if (!th->selected)
				continue;
			snprintf(buf, sizeof(buf), ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
				 "\"args\":{\"name\":", p->hdr.pid, th->tid);
			outbuf_puts(&c->ob, buf);
			put_jstr(c, th->name[0] ? th->name : program_name(p));
			outbuf_puts(&c->ob, "}}");
		}
	}
	for (size_t i = 0; threads && i < c->n_tracks; i++) {
		const struct chrome_track *k = &c->tracks[i];
		const struct trace_process *p = k->th->proc;
		snprintf(buf, sizeof(buf), ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
			 "\"args\":{\"name\":", p->hdr.pid, k->tid);
		outbuf_puts(&c->ob, buf);
		char name[160];
		snprintf(name, sizeof(name), "%s %u, stack 0x%" PRIx64, k->th->name[0] ? k->th->name : program_name(p),
			 k->th->tid, k->stack);
		put_jstr(c, name);
		outbuf_puts(&c->ob, "}}");
	}
	if (!threads && !t->n_procs)      /* no process: keep the array's commas right */
		outbuf_puts(&c->ob, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,"
				    "\"args\":{\"name\":\"fntrace\"}}");
}

int export_chrome(struct view *v, const struct export_opts *o, FILE *out)
{
	static const struct calls_ops ops = { .begin = on_begin, .end = on_end, .orphan = on_orphan, .lost = on_lost,
					      .mark = on_mark, .switched = on_switched };
	struct chrome c = { .v = v, .ob = { .out = out }, .next_tid = STACK_TID0 };
	struct trace *t = v->trace;
	int ret = 0;

	c.ob.buf = xmalloc(OUTBUF_CAP);
	outbuf_puts(&c.ob, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"fntrace\":\"" FNT_VERSION "\"");
	if (t->session_command) {
		outbuf_puts(&c.ob, ",\"command\":");
		put_jstr(&c, t->session_command);
	}
	outbuf_puts(&c.ob, "},\n\"traceEvents\":[\n");
	metadata(&c, 0);
	calls_walk(v, 0, &ops, &c, 0);
	metadata(&c, 1);
	outbuf_puts(&c.ob, "\n]}\n");
	outbuf_flush(&c.ob);
	if (c.ob.failed) {
		error_msg("cannot write '%s': %s (nothing was written to it)",
			  strcmp(o->output, "-") ? o->output : "standard output", strerror(errno));
		ret = -1;
	}
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct chrome_thread *ct = t->procs[i].threads[k].view_aux;
			if (ct)
				free(ct->stacks);
			free(ct);
			t->procs[i].threads[k].view_aux = NULL;
		}
	free(c.tracks);
	for (size_t i = 0; i < c.n_funcs; i++)
		free(c.funcs[i].json);
	free(c.funcs);
	free(c.scratch);
	free(c.ob.buf);
	return ret;
}
