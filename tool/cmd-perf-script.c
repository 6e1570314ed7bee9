/*
 * cmd-perf-script.c - `fntrace perf-script`: perf's samples with the real
 * frames put back from the trace.
 *
 * Under -pg -mfentry, -P and library calls the runtime swaps each traced
 * call's return address for its return trampoline and keeps the real one in
 * a per-thread shadow stack that no unwinder outside the process can read:
 * perf shows fnt_traced_return for every traced caller (frame pointers), or
 * ends the chain there (DWARF).  The trace knows which calls were open in
 * each thread at every instant, so this reads `perf script`'s text, finds
 * for each sample the calls open in its thread at its time, and writes the
 * same text with each swapped frame replaced by its caller's (perf-chain.c).
 *
 * Times: perf must record with -k mono (CLOCK_MONOTONIC), the clock the
 * reader converts the trace's times to (trace ns + t0_mono).  The two clocks
 * are read at different moments (the trace's around each event, perf's in
 * the sample's interrupt), so a sample within --window of a call's entry or
 * exit could belong to either side: every state of the thread's stack in
 * that window is tried, and the chain decides (perf-chain.c: the frame just
 * inside the first swapped one must lie in the open call whose return
 * address that is, and there must be no more swapped frames than open
 * calls).  The state at the sample's
 * very time wins; otherwise the fitting states must all give the same
 * frames, or the sample is left as it was and counted.
 *
 * The walk is per thread (calls layer, all frames), each thread's samples
 * sorted by time beside it: one pass over the trace, whatever the number of
 * samples.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/perf-chain.h"
#include "tool/tool.h"

static const char perf_script_usage[] =
	"usage: fntrace perf-script [options] [FILE|-]\n\n"
	"Read the text of 'perf script' (FILE, or standard input) and write it with\n"
	"the real callers in place of the fnt_traced_return frames of programs traced\n"
	"with -pg -mfentry, -P or library calls, taken from the trace of the same run.\n"
	"perf must record with -k mono:\n\n"
	"  perf record -k mono -g -- fntrace record -- ./prog\n"
	"  perf script | fntrace perf-script | stackcollapse-perf.pl | flamegraph.pl\n\n"
	"  -d, --data DIR         trace directory (default: fntrace.data)\n"
	"      --window TIME      how far apart perf's and the trace's times of one\n"
	"                         instant may be (default 50us)\n"
	"      --debug-dir DIR    also look for debug info under DIR (repeatable)\n"
	"      --prefix-map OLD=NEW  read sources/modules recorded under OLD from NEW\n"
	"      --no-demangle      show C++ names as in the symbol table\n"
	"      --demangle MODE    C++ names: short (default, as perf), full, simple or no\n"
	"  -h, --help             this help\n\n"
	"Samples whose thread is not in the trace, or whose chain fits no calls open\n"
	"at their time, are written as they were; stderr says how many.\n";

struct ps_thread {                  /* th->view_aux */
	struct pc_call *stack;      /* its open calls, outermost first, as pc_rewrite takes them */
	uint64_t *key;              /* key[i]: what stack[0..i] are (functions, call sites), hashed */
	size_t n, cap;
	uint64_t since;             /* CLOCK_MONOTONIC ns of the stack's last change */
	size_t lo, end;             /* its samples: order[lo..end) */
};

struct func_info {
	int done;
	const char *name, *dso;
	uint64_t start, size;
};

struct perf_script {
	struct view *v;
	char *in;
	size_t in_len;
	struct pc_sample *samples;
	size_t n_samples;
	size_t *order;              /* sample indices by (tid, time) */
	struct pc_match *match;
	uint64_t window;
	struct func_info *fi;
	size_t n_fi;
	struct ps_thread **threads; /* to free */
	size_t n_threads;
};

static char *read_all(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 1 << 16, n = 0;
	char *buf;
	if (!f)
		die("cannot open '%s': %s", path, strerror(errno));
	buf = xmalloc(cap);
	for (;;) {
		if (cap - n < 4096)
			buf = xrealloc(buf, cap *= 2);
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f))
		die("cannot read '%s': %s", strcmp(path, "-") ? path : "standard input", strerror(errno));
	if (f != stdin)
		fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* the samples of the input: a header line, its frame lines */
static void parse_input(struct perf_script *ps)
{
	struct pc_frame *frames = NULL;
	size_t n_frames = 0, cap_frames = 0, cap_samples = 0, line = 0;
	size_t *first = NULL;       /* each sample's first frame index */
	const char *p = ps->in, *end = ps->in + ps->in_len;
	struct pc_sample *cur = NULL;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		uint32_t tid;
		uint64_t ns;
		if (cur && len && (p[0] == ' ' || p[0] == '\t')) {
			if (n_frames == cap_frames)
				frames = xrealloc(frames, (cap_frames = cap_frames ? cap_frames * 2 : 1024) * sizeof(*frames));
			pc_parse_frame(p, len, &frames[n_frames]);
			n_frames++;
			cur->n_frames++;
		} else if (pc_parse_header(p, len, &tid, &ns) == 0) {
			if (ps->n_samples == cap_samples) {
				cap_samples = cap_samples ? cap_samples * 2 : 256;
				ps->samples = xrealloc(ps->samples, cap_samples * sizeof(*ps->samples));
				first = xrealloc(first, cap_samples * sizeof(*first));
			}
			cur = &ps->samples[ps->n_samples];
			memset(cur, 0, sizeof(*cur));
			cur->line = line;
			cur->tid = tid;
			cur->ns = ns;
			first[ps->n_samples++] = n_frames;
		} else {
			cur = NULL;
		}
		p += len + 1;
		line++;
	}
	for (size_t i = 0; i < ps->n_samples; i++) {
		ps->samples[i].frames = frames + first[i];
		pc_scan(&ps->samples[i]);
	}
	free(first);
}

static struct perf_script *sort_ps;

static int cmp_order(const void *a, const void *b)
{
	const struct pc_sample *x = &sort_ps->samples[*(const size_t *)a], *y = &sort_ps->samples[*(const size_t *)b];
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return 0;
}

static const struct func_info *func_info(struct perf_script *ps, uint32_t func)
{
	struct view *v = ps->v;
	if (func >= ps->n_fi) {
		size_t n = v->trace->n_funcs > func ? v->trace->n_funcs : func + 1;
		ps->fi = xrealloc(ps->fi, n * sizeof(*ps->fi));
		memset(ps->fi + ps->n_fi, 0, (n - ps->n_fi) * sizeof(*ps->fi));
		ps->n_fi = n;
	}
	struct func_info *fi = &ps->fi[func];
	if (!fi->done) {
		const struct trace_func *f = &v->trace->funcs[func];
		struct sym_func sf;
		fi->done = 1;
		fi->name = view_name(v, func);
		fi->dso = f->file == TRACE_NO_FILE ? NULL : v->trace->files[f->file].path;
		fi->start = f->vaddr;
		if (view_addr_sym(v, f->file, f->vaddr, &sf) == 0 && sf.start == f->vaddr)
			fi->size = sf.size;
	}
	return fi;
}

/* an entered call as pc_rewrite wants it: its function, and the frame its
 * return address stands for (the call site when recorded, else the entry
 * of the traced call it was made from: up, NULL for the outermost) */
static struct pc_call open_call(struct perf_script *ps, const struct frame *f, const struct pc_call *up)
{
	struct view *v = ps->v;
	const struct func_info *fi = func_info(ps, f->func);
	struct pc_call c = { .name = fi->name, .dso = fi->dso ? fi->dso : "[unknown]", .start = fi->start,
			     .size = fi->size };
	struct sym_func sf;
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
	}
	return c;
}

/* the thread's stack has been as it is from st->since to upto: try it on
 * the thread's samples within the window of that */
static void advance(struct perf_script *ps, struct ps_thread *st, uint64_t upto)
{
	uint64_t since = st->since;

	st->since = upto;
	if (!st->n)
		return;
	while (st->lo < st->end && ps->samples[ps->order[st->lo]].ns + ps->window < since)
		st->lo++;
	for (size_t j = st->lo; j < st->end; j++) {
		size_t idx = ps->order[j];
		const struct pc_sample *s = &ps->samples[idx];
		if (s->ns > upto && s->ns - upto > ps->window)
			break;
		if (pc_match_state(&ps->match[idx], s, st->stack, st->n, st->key[st->n - 1], since, upto))
			die("out of memory");
	}
}

static struct ps_thread *thread_state(struct perf_script *ps, struct trace_thread *th)
{
	struct ps_thread *st = th->view_aux;
	if (st)
		return st;
	st = xcalloc(1, sizeof(*st));
	th->view_aux = st;
	ps->threads = xrealloc(ps->threads, (ps->n_threads + 1) * sizeof(*ps->threads));
	ps->threads[ps->n_threads++] = st;
	/* its samples: the run of its tid in order[] */
	size_t lo = 0, hi = ps->n_samples;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->samples[ps->order[mid]].tid < th->tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	st->lo = st->end = lo;
	while (st->end < ps->n_samples && ps->samples[ps->order[st->end]].tid == th->tid)
		st->end++;
	return st;
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	struct perf_script *ps = ctx;
	struct ps_thread *st = thread_state(ps, th);
	advance(ps, st, ps->v->trace->t0_mono + f->start_ns);
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 64;
		st->stack = xrealloc(st->stack, st->cap * sizeof(*st->stack));
		st->key = xrealloc(st->key, st->cap * sizeof(*st->key));
	}
	st->stack[st->n] = open_call(ps, f, st->n ? &st->stack[st->n - 1] : NULL);
	st->key[st->n] = pc_key(pc_key(st->n ? st->key[st->n - 1] : 0, f->func), f->callsite);
	st->n++;
}

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct perf_script *ps = ctx;
	struct ps_thread *st = thread_state(ps, th);
	(void)f;
	(void)how;
	advance(ps, st, ps->v->trace->t0_mono + end_ns);
	if (st->n)
		st->n--;
}

static void write_output(struct perf_script *ps)
{
	const char *p = ps->in, *end = ps->in + ps->in_len;
	size_t line = 0, next = 0, skip = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (skip) {
			skip--;
		} else {
			fwrite(p, 1, len, stdout);
			if (nl)
				putchar('\n');
			if (next < ps->n_samples && ps->samples[next].line == line) {
				const struct pc_match *m = &ps->match[next];
				if (m->text && !m->conflict) {
					fwrite(m->text, 1, m->len, stdout);
					skip = ps->samples[next].n_frames;
				}
				next++;
			}
		}
		p += len + 1;
		line++;
	}
}

int cmd_perf_script(int argc, char **argv)
{
	static const struct option longopts[] = {
		VIEW_LONGOPTS,
		{ "window", required_argument, NULL, 0x200 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct calls_ops ops = { .begin = on_begin, .end = on_end };
	struct view_opts o = { 0 };
	struct view v;
	struct perf_script ps = { .v = &v, .window = 50000 };
	const char *path = "-";
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":d:h", longopts, NULL)) != -1) {
		if (view_opt(&o, opt, optarg))
			continue;
		switch (opt) {
		case 0x200: ps.window = parse_time_unit("--window", optarg, "a duration"); break;
		case 'h': fputs(perf_script_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o.no_pager || o.color)
		die_usage("options --no-pager and --color do not apply to 'perf-script'");
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!strcmp(path, "-") && isatty(0))
		die_usage("standard input is a terminal: pipe 'perf script' into it, or name a file");

	ps.in = read_all(path, &ps.in_len);
	parse_input(&ps);
	ps.order = xmalloc((ps.n_samples + 1) * sizeof(*ps.order));
	for (size_t i = 0; i < ps.n_samples; i++)
		ps.order[i] = i;
	sort_ps = &ps;
	qsort(ps.order, ps.n_samples, sizeof(*ps.order), cmp_order);
	ps.match = xcalloc(ps.n_samples + 1, sizeof(*ps.match));

	view_open(&v, &o);
	calls_walk(&v, 0, &ops, &ps, 1);      /* a thread's last frames end with its stream: no state left */

	write_output(&ps);
	fflush(stdout);
	size_t swapped = 0, unmatched = 0;
	for (size_t i = 0; i < ps.n_samples; i++)
		if (ps.samples[i].n_tramp) {
			swapped++;
			unmatched += !ps.match[i].text || ps.match[i].conflict;
		}
	if (!swapped)
		fprintf(stderr, "fntrace: perf-script: no sample has a fnt_traced_return frame: nothing to put back\n");
	else
		fprintf(stderr, "fntrace: perf-script: %zu of %zu samples had no matching calls in the trace%s\n",
			unmatched, swapped, unmatched * 2 >= swapped ?
			" (record with 'perf record -k mono' around the same run as the trace)" : "");
	view_report_problems(&v);
	int failed = ferror(stdout);
	for (size_t i = 0; i < ps.n_threads; i++) {
		free(ps.threads[i]->stack);
		free(ps.threads[i]->key);
		free(ps.threads[i]);
	}
	for (size_t i = 0; i < ps.n_samples; i++)
		free(ps.match[i].text);
	free(ps.threads);
	free(ps.match);
	free(ps.order);
	free(ps.fi);
	free(ps.n_samples ? ps.samples[0].frames : NULL);
	free(ps.samples);
	free(ps.in);
	view_close(&v);
	if (failed)
		die("cannot write the output: %s", strerror(errno));
	return 0;
}
