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
 * The matching is perf-match.c's, shared with perf-inject.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/perf-match.h"

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

struct perf_script {
	char *in;
	size_t in_len;
	struct pc_sample *samples;
	size_t n_samples;
	struct pc_match *match;
	uint64_t window;
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
	struct view_opts o = { 0 };
	struct view v;
	struct perf_script ps = { .window = 50000 };
	const char *path = "-";
	int opt;

	opterr = 0;
	while ((opt = fnt_getopt_long(argc, argv, ":d:h", longopts, NULL)) != -1) {
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
	ps.match = xcalloc(ps.n_samples + 1, sizeof(*ps.match));

	view_open(&v, &o);
	perf_match_walk(&v, ps.samples, ps.n_samples, ps.window, pc_render, ps.match);

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
	for (size_t i = 0; i < ps.n_samples; i++)
		free(ps.match[i].text);
	free(ps.match);
	free(ps.n_samples ? ps.samples[0].frames : NULL);
	free(ps.samples);
	free(ps.in);
	view_close(&v);
	if (failed)
		die("cannot write the output: %s", strerror(errno));
	return 0;
}
