/*
 * cmd-export.c - `fntrace export`: write the trace in a format other tools
 * open (Perfetto, Chrome trace-event JSON, folded stacks) or as a
 * self-contained flame graph / HTML report.
 *
 * The output is written to a temporary file beside the target and renamed
 * over it only when the writer succeeded and the data reached the disk, so
 * an interrupted or failed export never leaves a half-written file under the
 * target name.  Only a regular file (or a new name) is replaced that way,
 * keeping the mode of the file it replaces; a FIFO, a device node or a
 * symlink is opened and written into, never renamed over.  Each format's
 * writer lives in export-<format>.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/export.h"

static const struct export_format {
	const char *name;
	const char *ext;            /* default output: fntrace.<ext> */
	export_write_fn write;
	const char *desc;
	unsigned bytes_per_event;   /* output per trace event, measured (bench/run.py); 0: bounded */
	int values;                 /* writes the calls' argument and return values */
} formats[] = {
	{ "perfetto", "pftrace", export_perfetto, "Perfetto protobuf trace (ui.perfetto.dev, trace_processor)", 22, 1 },
	{ "chrome",   "json",    export_chrome,   "Chrome trace-event JSON (chrome://tracing, Perfetto, speedscope)", 108, 1 },
	{ "speedscope", "speedscope.json", export_speedscope, "speedscope's own JSON: one evented profile per thread", 37, 0 },
	{ "folded",   "folded",  export_folded,   "folded stacks (flamegraph.pl, inferno, speedscope)", 0, 0 },
	{ "svg",      "svg",     export_svg,      "interactive flame graph, one SVG file", 0, 0 },
	{ "html",     "html",    export_html,     "self-contained report: timeline, flame graph, profile", 0, 0 },
};

/* the events a walk handed out, and the bytes of their values */
struct walk_count {
	uint64_t events, payload;
};

static int count_batch(void *ctx, const struct trace_event *ev, size_t n)
{
	struct walk_count *wc = ctx;
	wc->events += n;
	for (size_t i = 0; i < n; i++)
		wc->payload += ev[i].payload_len;
	return 0;
}

/* Say before writing it that an export will be huge (1 GB by default,
 * FNTRACE_EXPORT_WARN bytes otherwise), and what to do instead.  The trace
 * files' sizes at 2 bytes an event (the format's densest; a call's values
 * make it 17) bound the events from above at no cost; only when that bound
 * passes the limit are the events counted, by a pass over the trace (a
 * fraction of the export's time): the bound alone announced 8.3 GB for an
 * export of 1.2 GB on a trace with values. */
static void warn_if_huge(struct trace *t, const struct view_opts *vo, const struct export_format *fmt,
			 const char *output)
{
	const char *env = getenv("FNTRACE_EXPORT_WARN");
	uint64_t limit = env && *env ? strtoull(env, NULL, 10) : 1000000000ull, bytes = 0;
	char size[32];
	struct stat st;
	if (!fmt->bytes_per_event || gz_suffix(output))
		return;
	/* only a file takes the room: not a pipe, a terminal or /dev/null */
	if (!strcmp(output, "-") ? !fstat(STDOUT_FILENO, &st) && !S_ISREG(st.st_mode)
				 : !stat(output, &st) && !S_ISREG(st.st_mode))
		return;
	for (size_t i = 0; i < t->n_procs; i++)
		bytes += t->procs[i].size > FNT_HEADER_SIZE ? t->procs[i].size - FNT_HEADER_SIZE : 0;
	double share = 1;
	/* --since/--until: the window's share of the run (calls overlapping it
	 * are exported whole, so this is a floor); no warning when the run's
	 * length is not known (it crashed) rather than a wrong one */
	if (vo->since_ns || vo->has_until) {
		uint64_t dur = 0;
		for (size_t i = 0; i < t->n_procs; i++)
			if (t->procs[i].hdr.end_mono > t->t0_mono && t->procs[i].hdr.end_mono - t->t0_mono > dur)
				dur = t->procs[i].hdr.end_mono - t->t0_mono;
		uint64_t hi = vo->has_until && vo->until_ns < dur ? vo->until_ns : dur;
		if (!dur || hi <= vo->since_ns)
			return;
		share = (double)(hi - vo->since_ns) / (double)dur;
	}
	uint64_t estimate = (uint64_t)((double)(bytes / 2 * fmt->bytes_per_event) * share);
	if (estimate < limit)
		return;
	struct walk_count wc = { 0, 0 };
	char what[PATH_MAX + 32];
	snprintf(what, sizeof(what), "counting the events for '%s'", output);
	progress_begin(t, what, !strcmp(output, "-") && isatty(STDOUT_FILENO));
	trace_walk_batch(t, 0, count_batch, &wc);
	progress_end();
	trace_rewind(t);
	/* a value's text (perfetto and chrome write them) is about as long as its bytes */
	estimate = (uint64_t)((double)(wc.events * fmt->bytes_per_event + (fmt->values ? wc.payload : 0)) * share);
	if (estimate < limit)
		return;
	human_bytes(size, sizeof(size), estimate);
	warning("'%s' will be about %s (%s takes ~%u bytes per event): --format perfetto is %s, "
		"'-o %s.gz' compresses it, and --since/--until export a part of the trace", output, size, fmt->name,
		fmt->bytes_per_event, strcmp(fmt->name, "perfetto") ? "about 4x smaller" : "the smallest", output);
}
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

static const char export_usage[] =
	"usage: fntrace export --format FMT [-o FILE] [options]\n\n"
	"Write the trace for other viewers.  Formats:\n"
	"  perfetto   Perfetto protobuf trace (ui.perfetto.dev, trace_processor)\n"
	"  chrome     Chrome trace-event JSON (chrome://tracing, Perfetto, speedscope)\n"
	"  speedscope speedscope's own JSON (speedscope.app): one profile per thread\n"
	"  folded     folded stacks, one line per stack with its self time in ns\n"
	"             (flamegraph.pl, inferno, speedscope)\n"
	"  svg        interactive flame graph in one SVG file\n"
	"  html       one self-contained HTML file: timeline, flame graph, profile\n\n"
	"  -f, --format FMT       one of the formats above (required)\n"
	"  -o, --output FILE      where to write (default: fntrace.<ext> here; - for stdout)\n"
	"  -d, --data DIR         trace directory (default: fntrace.data)\n"
	"      --value calls      folded/svg/html: weigh stacks by call count, not self\n"
	"                         time (--value time, the default)\n"
	"      --inverted         svg/html: icicle graph (roots at the top)\n"
	"      --title TEXT       svg/html: title (default: the traced command)\n"
	"      --no-collapse      folded/svg/html: one level per call of a direct\n"
	"                         recursion (by default f calling f is one frame)\n"
	FILTER_HELP
	TRIGGER_HELP
	"  -D, --depth N          only the first N levels\n"
	"  -t, --time-filter TIME only calls that took at least TIME (5us, 1ms)\n"
	TIME_RANGE_HELP
	"      --debug-dir DIR    also look for debug files under DIR\n"
	"      --prefix-map OLD=NEW  read module files from NEW where OLD was recorded\n"
	"      --no-demangle      keep C++ names mangled\n"
	"      --demangle MODE    C++ names: short (default), full, simple or no\n"
	"  -q, --quiet            no line on stderr saying what was written\n"
	"  -h, --help             this help\n\n"
	"A regular file is written under a temporary name and renamed when complete\n"
	"(an existing one keeps its mode); a FIFO, a device or a symlink is written\n"
	"into directly.  An export to a file estimated above 1 GB is announced\n"
	"before it is written, with the ways to a smaller one\n"
	"(FNTRACE_EXPORT_WARN=BYTES sets another limit).\n";

static const struct export_format *find_format(const char *name)
{
	for (size_t i = 0; i < N_FORMATS; i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		VIEW_LONGOPTS, FILTER_LONGOPTS,
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "value", required_argument, NULL, 0x500 },
		{ "inverted", no_argument, NULL, 0x501 },
		{ "title", required_argument, NULL, 0x502 },
		{ "no-collapse", no_argument, NULL, 0x503 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct view_opts vo = { 0 };
	struct export_opts o = { 0 };
	const struct export_format *fmt = NULL;
	struct view v;
	char defname[64];
	FILE *out;
	int opt, ret, quiet = 0;
	unsigned given = 0;         /* --value, --inverted, --title, --no-collapse */

	opterr = 0;
	optind = 1;
	while ((opt = fnt_getopt_long(argc, argv, ":d:F:N:H:C:D:t:T:f:o:qh", longopts, NULL)) != -1) {
		if (view_opt(&vo, opt, optarg))
			continue;
		switch (opt) {
		case 'f':
			fmt = find_format(optarg);
			if (!fmt)
				die_usage("option '--format' takes perfetto, chrome, speedscope, folded, svg or html, not '%s'",
					  optarg);
			o.format = fmt->name;
			break;
		case 'o':
			if (!*optarg)
				die_usage("option '--output' needs a file name");
			o.output = optarg;
			break;
		case 0x500:
			given |= 1;
			if (!strcmp(optarg, "calls"))
				o.value_calls = 1;
			else if (!strcmp(optarg, "time"))
				o.value_calls = 0;
			else
				die_usage("option '--value' takes time or calls, not '%s'", optarg);
			break;
		case 0x501: o.inverted = 1; given |= 2; break;
		case 0x502: o.title = optarg; given |= 4; break;
		case 0x503: o.no_collapse = 1; given |= 8; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(export_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!fmt)
		die_usage("no format given: use --format perfetto, chrome, speedscope, folded, svg or html");
	{
		/* the flame graph options: said, not silently dropped, for a
		 * format that has no flame graph */
		static const struct {
			unsigned bit;
			const char *opt, *formats;
		} only[] = {
			{ 1, "--value", "folded, svg and html" }, { 2, "--inverted", "svg and html" },
			{ 4, "--title", "svg and html" }, { 8, "--no-collapse", "folded, svg and html" },
		};
		int flame = !strcmp(fmt->name, "svg") || !strcmp(fmt->name, "html");
		for (size_t i = 0; i < sizeof(only) / sizeof(only[0]); i++)
			if ((given & only[i].bit) && !flame && !(strstr(only[i].formats, "folded") &&
							      !strcmp(fmt->name, "folded")))
				warning("option '%s' applies to %s only: ignored for %s", only[i].opt, only[i].formats,
					fmt->name);
	}
	if (!o.output) {
		snprintf(defname, sizeof(defname), "fntrace.%s", fmt->ext);
		o.output = defname;
	}

	view_open(&v, &vo);
	view_check_output(&v, o.output, "the export");
	warn_if_huge(v.trace, &vo, fmt, o.output);
	struct out_file of;
	out_file_open(&of, o.output, OUT_FILE_PRIVATE);
	out = of.f;

	char what[PATH_MAX + 32];
	snprintf(what, sizeof(what), "exporting '%s'", o.output);
	progress_begin(v.trace, what, out == stdout && isatty(STDOUT_FILENO));
	if (gz_suffix(o.output)) {       /* -o trace.json.gz: compressed as it is written */
		FILE *gz = gz_stream(out);
		ret = fmt->write(&v, &o, gz) ? 1 : 0;
		if (fclose(gz) && !ret) {
			error_msg("cannot write '%s': %s", o.output, strerror(errno));
			ret = 1;
		}
	} else {
		ret = fmt->write(&v, &o, out) ? 1 : 0;
	}
	progress_end();
	if (out == stdout && !strcmp(o.output, "-")) {
		if (fflush(stdout) || ferror(stdout)) {
			error_msg("cannot write the export to standard output: %s", strerror(errno));
			ret = 1;
		}
	} else {
		int renamed = of.renamed;
		if (out_file_close(&of, ret))
			ret = 1;
		struct stat st;
		char size[32];
		if (renamed && !ret && !quiet && !stat(o.output, &st)) {
			human_bytes(size, sizeof(size), (uint64_t)st.st_size);
			fprintf(stderr, "fntrace: wrote '%s' (%s, %s)\n", o.output, fmt->name, size);
		}
	}
	view_report_problems(&v);
	view_close(&v);
	return ret;
}
