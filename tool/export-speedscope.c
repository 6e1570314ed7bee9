/*
 * export-speedscope.c - speedscope's own file format (its JSON schema,
 * https://www.speedscope.app/file-format-schema.json), the input speedscope
 * reads best: one "evented" profile per thread, whose events open ("O") and
 * close ("C") frames at times in nanoseconds, and one shared frame table
 * (name, file, line) that the events refer to by index.
 *
 * Streaming like the chrome export: the call layer walks the threads one
 * after another, so each thread's profile is written as its events come and
 * closed when the next thread starts.  JSON objects have no key order, so
 * the values only known at a profile's end (its end time and name: a thread
 * names itself while it runs) follow its events, and the frame table, known
 * only at the end, follows the profiles.  Every frame opened is closed in
 * stack order by the call layer, a call that did not return at the end the
 * other exports use; times never decrease within a profile, as the schema
 * requires.  A thread that switches machine stacks (coroutines) closes the
 * frames of the stack it leaves and opens those of the stack it takes,
 * so that its profile shows what ran on it: a suspended coroutine's
 * frames are not on it meanwhile.  Instants (lost events, marks, exits without entry) have no
 * place in the format and are left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tool/export.h"
#include "tool/outbuf.h"

struct speedscope {
	struct view *v;
	struct outbuf ob;
	uint32_t *frame_of;      /* func -> frame index + 1 (0: not yet in the table) */
	size_t n_frame_of;
	uint32_t *funcs;         /* frame index -> func */
	size_t n_frames, cap_frames;
	struct trace_thread *cur; /* the thread whose profile is open */
	uint64_t last_ns;        /* its last event's time */
	size_t n_profiles;
};

static uint32_t frame_index(struct speedscope *s, uint32_t func)
{
	if (func >= s->n_frame_of) {
		size_t n = s->n_frame_of ? s->n_frame_of : 256;
		while (n <= func)
			n *= 2;
		s->frame_of = xrealloc(s->frame_of, n * sizeof(*s->frame_of));
		memset(s->frame_of + s->n_frame_of, 0, (n - s->n_frame_of) * sizeof(*s->frame_of));
		s->n_frame_of = n;
	}
	if (!s->frame_of[func]) {
		if (s->n_frames == s->cap_frames) {
			s->cap_frames = s->cap_frames ? 2 * s->cap_frames : 256;
			s->funcs = xrealloc(s->funcs, s->cap_frames * sizeof(*s->funcs));
		}
		s->funcs[s->n_frames++] = func;
		s->frame_of[func] = (uint32_t)s->n_frames;
	}
	return s->frame_of[func] - 1;
}

/* "<escaped str>" with the quotes */
static void put_jstr(struct speedscope *s, const char *str)
{
	size_t n = strlen(str);
	char *p = xmalloc(6 * n + 2), *e;
	*p = '"';
	e = json_escape(p + 1, str, n);
	*e++ = '"';
	outbuf_put(&s->ob, p, (size_t)(e - p));
	free(p);
}

static const char *program_name(const struct trace_process *p)
{
	if (p->argc > 0 && p->argv[0] && *p->argv[0]) {
		const char *b = strrchr(p->argv[0], '/');
		return b && b[1] ? b + 1 : p->argv[0];
	}
	return "process";
}

/* how many execs of its pid came before this process image (0: none);
 * processes are sorted by start, so the earlier images come first */
static unsigned exec_number(const struct trace_process *p)
{
	const struct trace *t = p->trace;
	unsigned n = 0;
	if (!p->after_exec)
		return 0;
	for (const struct trace_process *q = t->procs; q < p; q++)
		n += q->hdr.pid == p->hdr.pid;
	return n ? n : 1;
}

/* the end of the open profile: its end time and its name, one of its own
 * per thread: "prog (pid 7, tid 7)", and for the image an exec started
 * with the same pid and tid, "prog (pid 7, tid 7, after exec 1)" */
static void close_profile(struct speedscope *s)
{
	struct trace_thread *th = s->cur;
	char buf[128], after[32] = "";
	unsigned exec = th ? exec_number(th->proc) : 0;
	if (!th)
		return;
	snprintf(buf, sizeof(buf), "],\"endValue\":%" PRIu64 ",\"name\":", s->last_ns);
	outbuf_puts(&s->ob, buf);
	if (exec)
		snprintf(after, sizeof(after), ", after exec %u", exec);
	snprintf(buf, sizeof(buf), "%s (pid %u, tid %u%s)", th->name[0] ? th->name : program_name(th->proc),
		 th->proc->hdr.pid, th->tid, after);
	put_jstr(s, buf);
	outbuf_puts(&s->ob, "}");
	s->cur = NULL;
}

static void event(struct speedscope *s, struct trace_thread *th, char type, uint32_t func, uint64_t ns)
{
	char buf[160];
	if (th != s->cur) {
		close_profile(s);
		s->cur = th;
		s->last_ns = ns;
		snprintf(buf, sizeof(buf), "%s{\"type\":\"evented\",\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64
			 ",\"events\":[\n", s->n_profiles++ ? ",\n" : "", ns);
		outbuf_puts(&s->ob, buf);
	} else {
		outbuf_puts(&s->ob, ",\n");
	}
	if (ns < s->last_ns)         /* the clock went back: keep the order */
		ns = s->last_ns;
	s->last_ns = ns;
	snprintf(buf, sizeof(buf), "{\"type\":\"%c\",\"frame\":%u,\"at\":%" PRIu64 "}", type,
		 frame_index(s, func), ns);
	outbuf_puts(&s->ob, buf);
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	event(ctx, th, 'O', f->func, f->start_ns);
}

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	(void)how;
	event(ctx, th, 'C', f->func, end_ns > f->start_ns ? end_ns : f->start_ns);
}

static void on_suspend(void *ctx, struct trace_thread *th, const struct frame *f, int resumed, uint64_t ns)
{
	struct speedscope *s = ctx;
	if (th == s->cur)        /* (a thread's first events open its profile) */
		event(s, th, resumed ? 'O' : 'C', f->func, ns);
}

static void on_orphan(void *ctx, struct trace_thread *th, const struct trace_event *ev, int depth,
		      enum call_orphan why)
{
	(void)ctx, (void)th, (void)ev, (void)depth, (void)why;
}

static void on_lost(void *ctx, struct trace_thread *th, uint64_t count, uint64_t ns)
{
	(void)ctx, (void)th, (void)count, (void)ns;
}

static void on_mark(void *ctx, struct trace_thread *th, const char *text, size_t len, uint64_t ns, int depth)
{
	(void)ctx, (void)th, (void)text, (void)len, (void)ns, (void)depth;
}

int export_speedscope(struct view *v, const struct export_opts *o, FILE *out)
{
	static const struct calls_ops ops = { .begin = on_begin, .end = on_end, .orphan = on_orphan, .lost = on_lost,
					      .mark = on_mark, .suspend = on_suspend };
	struct speedscope s = { .v = v, .ob = { .out = out } };
	struct trace *t = v->trace;
	int ret = 0;

	s.ob.buf = xmalloc(OUTBUF_CAP);
	outbuf_puts(&s.ob, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
			   "\"exporter\":\"fntrace " FNT_VERSION "\",\"activeProfileIndex\":0,\"name\":");
	put_jstr(&s, t->session_command ? t->session_command
			 : t->n_procs ? program_name(&t->procs[0]) : "fntrace");
	outbuf_puts(&s.ob, ",\n\"profiles\":[\n");
	calls_walk(v, 0, &ops, &s, 0);
	close_profile(&s);
	outbuf_puts(&s.ob, "],\n\"shared\":{\"frames\":[");
	for (size_t i = 0; i < s.n_frames; i++) {
		const char *file = NULL;
		int line = 0;
		char buf[32];
		outbuf_puts(&s.ob, i ? ",\n{\"name\":" : "\n{\"name\":");
		put_jstr(&s, view_name(v, s.funcs[i]));
		if (!view_srcline(v, s.funcs[i], &file, &line)) {
			outbuf_puts(&s.ob, ",\"file\":");
			put_jstr(&s, file);
			snprintf(buf, sizeof(buf), ",\"line\":%d", line);
			outbuf_puts(&s.ob, buf);
		}
		outbuf_puts(&s.ob, "}");
	}
	outbuf_puts(&s.ob, "]}}\n");
	outbuf_flush(&s.ob);
	if (s.ob.failed) {
		error_msg("cannot write '%s': %s (nothing was written to it)",
			  strcmp(o->output, "-") ? o->output : "standard output", strerror(errno));
		ret = -1;
	}
	free(s.frame_of);
	free(s.funcs);
	free(s.ob.buf);
	return ret;
}
