/*
 * cmd-stacks.c - `fntrace stacks`: every call stack the program captured
 * with fnt_capture_stack(), in time order, one frame a line as
 * module!function (file:line), or module+0xoffset where no symbol covers
 * the address.
 *
 * The reader has already resolved each return address against the module
 * map of its process at the capture's time (a library loaded later at the
 * same address does not confuse it); this file only names (module file,
 * vaddr) pairs.  A return address points after its call instruction, so
 * names and lines are looked up one byte before it: the line of the call.
 */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include "tool/tool.h"

static const char stacks_usage[] =
	"usage: fntrace stacks [options]\n\n"
	"Print the call stacks captured by fnt_capture_stack(), innermost frame\n"
	"first, each with its time and thread.\n\n"
	"  -d, --data DIR         trace directory (default: fntrace.data)\n"
	"      --tid TID[,TID]    only these threads\n"
	"      --since TIME       only the stacks captured at or after TIME (1.5ms,\n"
	"                         200us, 2s, 500ns: time since the recording started)\n"
	"      --until TIME       only the stacks captured at or before TIME\n"
	"      --debug-dir DIR    also look for debug info under DIR (repeatable)\n"
	"      --prefix-map OLD=NEW  read sources/modules recorded under OLD from NEW\n"
	"      --no-demangle      show C++ names as in the symbol table\n"
	"      --demangle MODE    C++ names: short (default), full, simple or no\n"
	PAGER_HELP
	"  -h, --help             this help\n";

struct stacks {
	struct view *v;
	uint64_t n;
	uint64_t outside, first_ns, last_ns;   /* stacks the --since/--until window left out */
};

/* "#1  prog!main (main.c:40)": frame i of a STACK record (ev), or the
 * function func (ev NULL: a backtrace trigger at read time, shown with the
 * line where the function starts) */
/* a text view's line: the program's names with their control characters
 * escaped (text_safe), cut to cap */
static void escape_in_place(char *buf, size_t cap)
{
	char tmp[1100];
	const char *s = text_safe(buf, tmp, sizeof(tmp) < cap ? sizeof(tmp) : cap);
	if (s != buf)
		memmove(buf, s, strlen(s) + 1);
}

void stack_frame_text(struct view *v, const struct trace_event *ev, size_t i, uint32_t func, char *buf, size_t cap)
{
	uint32_t file;
	uint64_t at;
	const char *name, *src = NULL, *mod;
	int line = 0, n;

	if (ev) {
		file = ev->body->stack_file[i];
		at = ev->body->stack_vaddr[i] - 1;     /* the call, not the instruction after it */
		if (file == TRACE_NO_FILE) {
			snprintf(buf, cap, "#%-2zu 0x%" PRIx64, i, ev->body->stack[i]);
			return;
		}
		name = view_addr_func(v, file, at);
	} else {
		file = v->trace->funcs[func].file;
		at = v->trace->funcs[func].vaddr;
		name = view_name(v, func);
		if (file == TRACE_NO_FILE) {
			snprintf(buf, cap, "#%-2zu %s", i, name);
			escape_in_place(buf, cap);
			return;
		}
	}
	mod = strrchr(v->trace->files[file].path, '/');
	mod = mod ? mod + 1 : v->trace->files[file].path;
	if (name)
		n = snprintf(buf, cap, "#%-2zu %s!%s", i, mod, name);
	else
		n = snprintf(buf, cap, "#%-2zu %s+%#" PRIx64, i, mod, at + 1);
	if (n < 0 || (size_t)n >= cap)
		return;
	if ((ev ? view_addr_srcline(v, file, at, &src, &line) : view_srcline(v, func, &src, &line)) == 0 && src) {
		const char *b = strrchr(src, '/');
		snprintf(buf + n, cap - (size_t)n, " (%s:%d)", b ? b + 1 : src, line);
	}
	escape_in_place(buf, cap);
}

static int on_event(void *ctx, const struct trace_event *ev)
{
	struct stacks *s = ctx;
	struct view *v = s->v;
	char when[32];

	if (ev->kind != TRACE_STACK)
		return 0;
	if (ev->ns < v->opts->since_ns || (v->opts->has_until && ev->ns > v->opts->until_ns)) {
		if (!s->outside++ || ev->ns < s->first_ns)
			s->first_ns = ev->ns;
		if (ev->ns > s->last_ns)
			s->last_ns = ev->ns;
		return 0;
	}
	format_duration(when, sizeof(when), ev->ns);
	printf("%sstack %" PRIu64 " at %s, thread %u", s->n ? "\n" : "", s->n + 1, when + strspn(when, " "),
	       ev->thread->tid);
	if (ev->thread->name[0]) {
		char esc[80];
		printf(" (%s)", text_safe(ev->thread->name, esc, sizeof(esc)));
	}
	printf(", pid %u:\n", ev->thread->proc->hdr.pid);
	s->n++;
	for (uint64_t i = 0; i < ev->count; i++) {
		char line[1024];
		stack_frame_text(v, ev, (size_t)i, TRACE_NO_FUNC, line, sizeof(line));
		printf("  %s\n", line);
	}
	return 0;
}

int cmd_stacks(int argc, char **argv)
{
	static const struct option longopts[] = {
		VIEW_LONGOPTS, FILTER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct view_opts o = { 0 };
	struct view v;
	struct stacks s = { .v = &v };
	int opt;

	opterr = 0;
	while ((opt = fnt_getopt_long(argc, argv, ":d:h", longopts, NULL)) != -1) {
		if (view_opt(&o, opt, optarg))
			continue;
		switch (opt) {
		case 'h': fputs(stacks_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (o.filter.n || o.notrace.n || o.max_depth || o.hide.n || o.callers.n || o.n_trigger_globs)
		die_usage("options -F, -N, -H, -C, -D and -T do not apply to 'stacks'");
	view_open(&v, &o);
	pager_start(&o);
	trace_walk(v.trace, 1, on_event, &s);
	fflush(stdout);
	if (!s.n && s.outside) {
		char a[32], b[32];
		format_duration(a, sizeof(a), s.first_ns);
		format_duration(b, sizeof(b), s.last_ns);
		const char *dir = o.dir ? o.dir : "fntrace.data";
		if (s.outside == 1)
			fprintf(stderr, "fntrace: the call stack in '%s' is outside the --since/--until window: it was "
				"captured at %s after the start of the recording\n", dir, a + strspn(a, " "));
		else
			fprintf(stderr, "fntrace: none of the %" PRIu64 " call stacks in '%s' is in the --since/--until "
				"window: they were captured from %s to %s after the start of the recording\n",
				s.outside, dir, a + strspn(a, " "), b + strspn(b, " "));
	} else if (!s.n)
		fprintf(stderr, "fntrace: no call stacks in '%s' (the program captures them with "
			"fnt_capture_stack(), see include/fntrace.h)\n", o.dir ? o.dir : "fntrace.data");
	view_report_problems(&v);
	view_close(&v);
	return s.n ? 0 : 1;
}
