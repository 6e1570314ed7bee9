/*
 * cmd-graph.c - `fntrace graph [FUNC]`: the call tree under every
 * activation of FUNC merged by path (or, with --callers, the inverted tree
 * of the paths that lead to FUNC), each node with its calls, inclusive and
 * self time.  Built on the shared call tree (calltree.c), so memory grows
 * with distinct paths, not with events.
 *
 * -D counts levels from the tree's top (FUNC), not from the threads' first
 * frames, so the call layer gets no depth limit: pruning is done here when
 * printing, as is --min-time.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tool/calltree.h"

static const char graph_usage[] =
	"usage: fntrace graph [options] [FUNC]\n\n"
	"The calls under FUNC, every activation merged by call path, as a tree with\n"
	"the calls, total (inclusive) and self time of each path.  Without FUNC: the\n"
	"whole tree from each thread's first frame.  FUNC is a glob, like -F.\n\n"
	"      --callers          who calls FUNC: the paths from FUNC up to the first\n"
	"                         frames (times are FUNC's own along each path)\n"
	"  -D, --depth N          only N levels of the tree (FUNC is level 1)\n"
	"      --min-time T       hide paths whose total time is below T: a duration\n"
	"                         (500ns, 10us, 2ms, 1s) or a percent of the tree (1%)\n"
	"      --no-collapse      one level per call of a direct recursion (by default\n"
	"                         f calling f is one node, its total counted once)\n"
	"      --diff BASE        compare with the trace BASE (another run), path by\n"
	"                         path: the times and calls of each and the change\n"
	"  -d, --data DIR         trace directory (default: fntrace.data)\n"
	FILTER_HELP
	TRIGGER_HELP
	"  -t, --time-filter TIME only calls that took at least TIME (5us, 1ms)\n"
	TIME_RANGE_HELP
	"      --debug-dir DIR    also look for debug files under DIR\n"
	"      --prefix-map OLD=NEW  read module files from NEW where OLD was recorded\n"
	"      --no-demangle      keep C++ names mangled\n"
	"      --demangle MODE    C++ names: short (default), full, simple or no\n"
	PAGER_HELP
	"  -h, --help             this help\n";

struct graph {
	struct view *v;
	const char *pattern;
	uint8_t *match;          /* per function: 0 unknown, 1 no, 2 yes */
	size_t n_match;
};

static int anchor(void *ctx, uint32_t func)
{
	struct graph *g = ctx;
	if (func >= g->n_match) {
		size_t n = g->n_match ? g->n_match : 256;
		while (n <= func)
			n *= 2;
		g->match = xrealloc(g->match, n);
		memset(g->match + g->n_match, 0, n - g->n_match);
		g->n_match = n;
	}
	if (!g->match[func]) {
		const char *s = view_name(g->v, func), *full = view_sig_name(g->v, func);
		int m = !fnmatch(g->pattern, s, 0) || !strcmp(g->pattern, s) || !fnmatch(g->pattern, full, 0) ||
			!strcmp(g->pattern, full);
		g->match[func] = m ? 2 : 1;
	}
	return g->match[func] == 2;
}

/* "10us", "1.5ms", "500" (ns), "2%" (*percent set) */
static uint64_t parse_min_time(const char *arg, double *percent)
{
	char *end;
	double x;
	errno = 0;
	x = strtod(arg, &end);
	if (errno || end == arg || !(x >= 0) || isinf(x))
		goto bad;
	if (!strcmp(end, "%")) {
		if (x > 100)
			goto bad;
		*percent = x;
		return 0;
	}
	if (!strcmp(end, "") || !strcmp(end, "ns"))
		return (uint64_t)x;
	if (!strcmp(end, "us"))
		return (uint64_t)(x * 1e3);
	if (!strcmp(end, "ms"))
		return (uint64_t)(x * 1e6);
	if (!strcmp(end, "s"))
		return (uint64_t)(x * 1e9);
bad:
	die_usage("option '--min-time' takes a duration like 10us, 2ms, 1s, or a percent like 1%%, not '%s'", arg);
}

struct pending {
	uint32_t node;
	uint8_t last;
};

static void print_tree(struct view *v, struct calltree *t, int max_depth, uint64_t min_ns, uint64_t *hidden)
{
	struct pending *st = xmalloc((size_t)t->len * sizeof(*st));
	uint32_t *kids = xmalloc((size_t)t->len * sizeof(*kids));
	size_t sp = 0, cap = 256;
	char *prefix = xmalloc(cap);
	char a[32], b[32];
	size_t n_labels;
	char **labels = calltree_labels(v, t, &n_labels);

	printf("  Total time   Self time       Calls  Function\n"
	       "  ==========  ==========  ==========  ========\n");
	/* push the visible children of node p, last one first out last */
#define PUSH_KIDS(p) do { \
		size_t nk = 0; \
		for (uint32_t c = t->n[p].first_child; c != CT_NONE; c = t->n[c].next) { \
			if (t->n[c].total < min_ns || (max_depth && (int)t->n[c].depth >= max_depth)) \
				(*hidden)++; \
			else \
				kids[nk++] = c; \
		} \
		for (size_t k = nk; k > 0; k--) { \
			st[sp].node = kids[k - 1]; \
			st[sp++].last = k == nk; \
		} \
	} while (0)
	PUSH_KIDS(0);
	while (sp) {
		struct pending p = st[--sp];
		struct ct_node *n = &t->n[p.node];
		size_t d = n->depth;
		if (3 * d + 3 > cap) {
			cap = 2 * (3 * d + 3);
			prefix = xrealloc(prefix, cap);
		}
		format_duration_color(a, sizeof(a), n->total);
		format_duration_color(b, sizeof(b), n->self);
		printf("  %s  %s  %10" PRIu64 "  ", a, b, n->calls);
		if (d) {
			fwrite(prefix, 1, 3 * (d - 1), stdout);
			fputs("+-", stdout);
			memcpy(prefix + 3 * (d - 1), p.last ? "   " : "|  ", 3);
		}
		text_fput(calltree_label(v, labels, n_labels, n->func), stdout);
		if (n->rec_calls && n->func != CT_DEEP)
			printf(" [recursive: %" PRIu64 " of the calls were made by itself]", n->rec_calls);
		putchar('\n');
		PUSH_KIDS(p.node);
	}
#undef PUSH_KIDS
	view_labels_free(labels, n_labels);
	free(st);
	free(kids);
	free(prefix);
}

/* --diff BASE: BASE's tree built as this one was (same FUNC, mode and
 * filters), printed merged with it */
static int graph_diff_views(struct view *v, struct calltree *t, const struct calltree_build *b,
			    const struct graph *g, const char *base_dir, int max_depth, uint64_t min_ns,
			    uint64_t *hidden)
{
	struct view_opts bo = *v->opts;
	struct view bv;
	struct graph bg = { .v = &bv, .pattern = g->pattern };
	struct calltree bt;
	struct calltree_build bb = *b;
	int ret = 0;

	bo.dir = base_dir;
	view_open(&bv, &bo);
	calltree_init(&bt);
	bb.tree = &bt;
	bb.anchor_ctx = &bg;
	bb.anchored = 0;
	progress_begin(bv.trace, "reading the base trace", 0);
	calltree_build(&bv, &bb);
	progress_end();
	if (!trace_has_function_events(bv.trace)) {
		view_no_events_hint(&bv);
		ret = 1;
	} else {
		graph_diff(v, t, &bv, &bt, max_depth, min_ns, hidden);
	}
	calltree_release(&bt);
	free(bg.match);
	view_report_problems(&bv);
	view_close_borrowed(&bv);
	return ret;
}

int cmd_graph(int argc, char **argv)
{
	static const struct option longopts[] = {
		VIEW_LONGOPTS, FILTER_LONGOPTS,
		{ "callers", no_argument, NULL, 0x600 },
		{ "min-time", required_argument, NULL, 0x601 },
		{ "no-collapse", no_argument, NULL, 0x602 },
		{ "diff", required_argument, NULL, 0x603 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct view_opts o = { 0 };
	struct view v;
	struct graph g = { .v = &v };
	struct calltree t;
	struct calltree_build b = { .tree = &t, .mode = CT_ALL, .anchor = anchor, .anchor_ctx = &g };
	int opt, callers = 0, max_depth, ret = 0;
	const char *diff_dir = NULL;
	uint64_t min_ns = 0, hidden = 0, sum = 0;
	double percent = -1;

	opterr = 0;
	optind = 1;
	while ((opt = fnt_getopt_long(argc, argv, ":d:F:N:H:C:D:t:T:h", longopts, NULL)) != -1) {
		if (view_opt(&o, opt, optarg))
			continue;
		switch (opt) {
		case 0x600: callers = 1; break;
		case 0x601: min_ns = parse_min_time(optarg, &percent); break;
		case 0x602: b.no_collapse = 1; break;
		case 0x603: diff_dir = optarg; break;
		case 'h': fputs(graph_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		g.pattern = argv[optind++];
	if (optind < argc)
		die_usage("unexpected argument '%s' (graph takes one FUNC)", argv[optind]);
	if (callers && !g.pattern)
		die_usage("option '--callers' needs a FUNC: fntrace graph --callers FUNC");
	if (g.pattern && !*g.pattern)
		die_usage("the FUNC argument is empty");
	max_depth = o.max_depth;
	o.max_depth = 0;
	if (g.pattern)
		b.mode = callers ? CT_CALLERS : CT_UNDER;

	view_open(&v, &o);
	calltree_init(&t);
	progress_begin(v.trace, "reading the trace", 0);
	calltree_build(&v, &b);
	progress_end();
	pager_start(&o);
	if (!trace_has_function_events(v.trace)) {
		view_no_events_hint(&v);
		ret = 1;
		goto out;
	}
	if (g.pattern && !b.anchored) {
		error_msg("no function matching '%s' was called in '%s'%s (see 'fntrace report' for the names)",
			  g.pattern, o.dir,
			  o.filter.n || o.notrace.n || o.hide.n || o.callers.n || o.n_triggers || o.n_tids ||
					  o.max_depth || o.min_ns || o.since_ns || o.has_until ?
				  " with these filters" : "");
		ret = 1;
		goto out;
	}
	for (uint32_t c = t.n[0].first_child; c != CT_NONE; c = t.n[c].next)
		sum += t.n[c].total;
	if (percent >= 0)
		min_ns = (uint64_t)ceil(sum * percent / 100.0);
	if (diff_dir) {
		ret = graph_diff_views(&v, &t, &b, &g, diff_dir, max_depth, min_ns, &hidden);
		goto hidden;
	}
	if (callers)
		printf("# callers of '%s' (%" PRIu64 " call%s): from the function up to the threads' first frames\n",
		       g.pattern, b.anchored, b.anchored == 1 ? "" : "s");
	else if (g.pattern)
		printf("# calls under '%s' (%" PRIu64 " call%s), merged by path\n", g.pattern, b.anchored,
		       b.anchored == 1 ? "" : "s");
	else
		printf("# calls from each thread's first frame, merged by path\n");
	print_tree(&v, &t, max_depth, min_ns, &hidden);
hidden:
	if (hidden)
		printf("# %" PRIu64 " subtree%s below --min-time or deeper than -D not shown\n", hidden,
		       hidden == 1 ? "" : "s");
out:
	fflush(stdout);
	free(g.match);
	calltree_release(&t);
	view_report_problems(&v);
	view_close(&v);
	return ret;
}
