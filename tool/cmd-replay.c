/*
 * cmd-replay.c - `fntrace replay`: every call, nested, per thread, with
 * durations, in time order across threads and processes.  A leaf call is
 * printed on one line; that needs one event of look-ahead per thread, kept
 * as the thread's pending entry.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tool/tool.h"

static const char replay_usage[] =
	"usage: fntrace replay [options]\n\n"
	"Show the recorded calls in time order, nested per thread, with durations.\n\n"
	"  -d, --data DIR         trace directory (default: fntrace.data)\n"
	"      --tid TID[,TID]    only these threads\n"
	"  -F, --filter FUNC      only the calls under FUNC (a glob, repeatable)\n"
	"  -N, --notrace FUNC     hide FUNC and everything it calls (a glob, repeatable)\n"
	"  -D, --depth N          show at most N levels\n"
	"      --time             print the wall-clock time of each line\n"
	"      --srcline          print file:line of each function (and of the call\n"
	"                         site when recorded with 'record --callsite')\n"
	"      --debug-dir DIR    also look for debug files under DIR (repeatable)\n"
	"      --prefix-map OLD=NEW  read module files from NEW where OLD was recorded\n"
	"      --no-demangle      keep C++ names mangled\n"
	"  -h, --help             this help\n";

struct replay {
	struct view *v;
	FILE *out;
	int time, srcline;
	uint64_t lines;
};

struct pending {
	int has;
	struct frame f;
};

static void prefix(struct replay *r, struct trace_thread *th, const char *dur, uint64_t ns, int depth)
{
	if (r->time) {
		uint64_t real = trace_ns_to_real(r->v->trace, ns);
		time_t sec = (time_t)(real / 1000000000ull);
		struct tm tm;
		char buf[32];
		localtime_r(&sec, &tm);
		strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
		fprintf(r->out, "%s.%09" PRIu64 " ", buf, (uint64_t)(real % 1000000000u));
	}
	fprintf(r->out, "%11s [%6u] | %*s", dur, th->tid, depth * 2, "");
}

static void srcline(struct replay *r, const struct frame *f)
{
	const char *file;
	int line;
	if (!r->srcline)
		return;
	if (!view_srcline(r->v, f->func, &file, &line)) {
		const char *base = strrchr(file, '/');
		fprintf(r->out, " [%s:%d]", base ? base + 1 : file, line);
	}
	if (f->callsite && !view_addr_srcline(r->v, f->callsite_file, f->callsite_vaddr - 1, &file, &line)) {
		const char *base = strrchr(file, '/');
		fprintf(r->out, " [from %s:%d]", base ? base + 1 : file, line);
	}
}

/* per-thread look-ahead, hung on the thread */
static struct pending *slot(struct trace_thread *th)
{
	if (!th->view_aux)
		th->view_aux = xcalloc(1, sizeof(struct pending));
	return th->view_aux;
}

static void flush_pending(struct replay *r, struct trace_thread *th, struct pending *p)
{
	if (!p->has)
		return;
	prefix(r, th, "", p->f.start_ns, p->f.depth);
	fprintf(r->out, "%s() {", view_name(r->v, p->f.func));
	srcline(r, &p->f);
	fputc('\n', r->out);
	r->lines++;
	p->has = 0;
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	struct replay *r = ctx;
	struct pending *p = slot(th);
	flush_pending(r, th, p);
	p->f = *f;
	p->has = 1;
}

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct replay *r = ctx;
	struct pending *p = slot(th);
	char dur[32] = "";
	const char *why = how == CALL_UNWOUND ? " (no return: unwound)" :
			  how == CALL_TRUNCATED ? " (no return: trace ended)" : "";

	if (how == CALL_RETURN)
		format_duration(dur, sizeof(dur), end_ns - f->start_ns);
	if (p->has && p->f.start_ns == f->start_ns && p->f.addr == f->addr && p->f.depth == f->depth &&
	    how == CALL_RETURN) {
		p->has = 0;
		prefix(r, th, dur, end_ns, f->depth);
		fprintf(r->out, "%s();", view_name(r->v, f->func));
		srcline(r, f);
		fputc('\n', r->out);
		r->lines++;
		return;
	}
	flush_pending(r, th, p);
	prefix(r, th, dur, end_ns, f->depth);
	fprintf(r->out, "} /* %s%s */\n", view_name(r->v, f->func), why);
	r->lines++;
}

static void on_orphan(void *ctx, struct trace_thread *th, uint32_t func, uint64_t ns, int depth)
{
	struct replay *r = ctx;
	flush_pending(r, th, slot(th));
	prefix(r, th, "", ns, depth);
	fprintf(r->out, "} /* %s (entered before this process began) */\n", view_name(r->v, func));
	r->lines++;
}

static void on_lost(void *ctx, struct trace_thread *th, uint64_t count, uint64_t ns)
{
	struct replay *r = ctx;
	struct pending *p = slot(th);
	flush_pending(r, th, p);
	prefix(r, th, "", ns, 0);
	fprintf(r->out, "/* %" PRIu64 " events lost here */\n", count);
	r->lines++;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		VIEW_LONGOPTS, FILTER_LONGOPTS,
		{ "time", no_argument, NULL, 0x300 },
		{ "srcline", no_argument, NULL, 0x301 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct calls_ops ops = { on_begin, on_end, on_orphan, on_lost };
	struct view_opts o = { 0 };
	struct view v;
	struct replay r = { .v = &v, .out = stdout };
	int opt;
	static char buf[1 << 16];

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "d:F:N:D:h", longopts, NULL)) != -1) {
		if (view_opt(&o, opt, optarg))
			continue;
		switch (opt) {
		case 0x300: r.time = 1; break;
		case 0x301: r.srcline = 1; break;
		case 'h': fputs(replay_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	view_open(&v, &o);
	fprintf(r.out, "# DURATION     TID     FUNCTION\n");
	calls_walk(&v, 1, &ops, &r, 0);
	for (size_t i = 0; i < v.trace->n_procs; i++)
		for (size_t k = 0; k < v.trace->procs[i].n_threads; k++) {
			struct trace_thread *th = &v.trace->procs[i].threads[k];
			if (th->view_aux)
				flush_pending(&r, th, th->view_aux);
			free(th->view_aux);
			th->view_aux = NULL;
		}
	fflush(stdout);
	int ret = 0;
	if (!trace_has_function_events(v.trace)) {
		view_no_events_hint(&v);
		ret = 1;
	}
	view_report_problems(&v);
	view_close(&v);
	return ret;
}
