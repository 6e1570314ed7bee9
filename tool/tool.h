/*
 * tool.h - what the fntrace command's files share: error helpers, the view
 * options every reading command accepts, function naming, and the call
 * layer (calls.c) that turns entry/exit events into matched calls.
 */
#ifndef FNT_TOOL_H
#define FNT_TOOL_H

#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "format/reader.h"
#include "symbols/symbols.h"

#define FNT_VERSION "0.1.0"

/* ---- opts.c: getopt_long for every command ---- */
/* getopt_long, except that an abbreviated long option never takes the next
 * argument as its value, and an unknown option that is a uftrace spelling
 * dies with a usage error naming fntrace's */
int fnt_getopt_long(int argc, char *const argv[], const char *optstring, const struct option *longopts,
		    int *longindex);

/* ---- util.c ---- */
extern const char *cmd_name;     /* the running subcommand, for messages */
/* in a child, before exec: the signal dispositions the tool was started with (main.c) */
void tool_exec_prepare(void);
/* the signals record and live handle, blocked until their handlers are in;
 * the mask before in *before, for the child and for after (main.c) */
void tool_hold_signals(sigset_t *before);
/* die of signal sig as the program did (no core of the tool's own); returns
 * only for a signal whose default action does not end a process (main.c) */
void tool_die_of_signal(int sig);
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void die_usage(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a -F/-N/-H/-C/-T/-P pattern that reads as a regular expression (uftrace's
 * filters are): a warning with the glob it likely means */
void glob_regex_hint(const char *opt, const char *pat);
/* the same one-line "fntrace: ..." message as die(), without exiting */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* needed.c: the shared libraries prog links against, as paths (NULL-ended
 * array in *out, the caller frees); returns how many were found */
size_t needed_libs(const char *prog, char ***out);
uint64_t parse_uint(const char *opt, const char *arg, uint64_t max);
int parse_depth(const char *opt, const char *arg);
/* CLOCK_MONOTONIC now, in ns */
uint64_t mono_now(void);
uint64_t parse_size(const char *opt, const char *arg);
void format_duration(char *buf, size_t len, uint64_t ns);   /* "  1.234 us" (10 chars) */
char *put_duration(char *p, uint64_t ns);                  /* the same into p, returns its end */
const char *signal_desc(int sig);
/* waits for child, calling tick(ctx) between looks; tick returns the ns to
 * sleep before the next (the child's exit ends a sleep at once); 0 or -1 */
int wait_child(pid_t child, int *status, long (*tick)(void *ctx), void *ctx);
int parse_signal(const char *arg);                          /* "SIGUSR2", "usr2", "12"; 0 if unknown */

/* Text views (replay, report, graph, info, stacks, tui) print text the
 * traced program chose: function and scope names, thread names, marks,
 * command lines, paths.  A control character in it (< 0x20, 0x7f, and
 * the C1 controls U+0080..U+009F as UTF-8) is written as C escapes (\n,
 * \t, \r, \x1b, \xc2\x9b), so that it can neither split a line nor reach
 * the user's terminal as a control sequence; every other byte is kept.
 * (json and csv have escaping of their own.) */
size_t text_escaped_len(const char *s, size_t n);      /* n when nothing needs escaping */
char *text_escape(char *dst, const char *s, size_t n); /* dst holds 4 * n bytes; returns the end */
char *text_escape_dup(const char *s);                  /* a new string, always */
void text_fput(const char *s, FILE *f);
/* s itself when nothing needs escaping, else its escaped form in buf (cut
 * to cap - 1 bytes, never inside an escape) */
const char *text_safe(const char *s, char *buf, size_t cap);

/* ---- outfile.c: an output file written whole or not at all ---- */
struct out_file {
	FILE *f;                    /* write here */
	const char *path;
	int renamed;                /* written under a temporary name, renamed by out_file_close */
};
/* "-": standard output; an existing FIFO, device or symlink: written into;
 * else a temporary file beside path, renamed over it when closed, with the
 * mode of the regular file it replaces, or for a new one mode minus the
 * umask (OUT_FILE_PRIVATE: what is made from a trace is as private as the
 * trace).  Dies if it cannot. */
#define OUT_FILE_PRIVATE 0600
void out_file_open(struct out_file *o, const char *path, mode_t mode);
/* the same, the file made 0600 (new or replaced) whatever the umask */
void out_file_open_private(struct out_file *o, const char *path);
/* Dies if out (-o) would replace a file of the trace (or with outside,
 * be anywhere in its directory: archive) or one of its modules (the
 * traced program): writing it would destroy what the command reads.
 * what: "the export", for the message. */
void out_file_check(const char *out, const char *what, const char *trace, const char *const *modules,
		    size_t n_modules, int outside);
/* Flush and close (rename into place).  failed: the writer failed (and
 * said so): nothing is renamed.  0, or -1 after one error line. */
int out_file_close(struct out_file *o, int failed);

/* ---- pager.c ---- */
struct view_opts;
extern int use_color;                 /* set by pager_start */
/* on a terminal: start the pager (unless --no-pager), decide colour */
void pager_start(const struct view_opts *o);
/* wait for the pager to quit, if one runs */
void pager_finish(void);
void format_duration_color(char *buf, size_t len, uint64_t ns);   /* format_duration, coloured */
char *put_duration_color(char *p, uint64_t ns);                   /* put_duration, coloured */

/* ---- report-diff.c: report --diff ---- */
struct prof_row {                     /* one function's profile, by name and module */
	const char *name, *module;
	char *key;                        /* view_match_key: matched by it and the module */
	int in_program;                   /* module is the trace's program (view_program_file) */
	uint64_t calls, total, self, avg;
};
/* how --diff orders and matches modules: the two traces' programs match
 * each other whatever their file names (prog-O0, prog-O2), other modules
 * (shared libraries) by file name */
int diff_module_cmp(const char *module_a, int program_a, const char *module_b, int program_b);
/* sorts both arrays by name; sort_key as report's -s ('t' total, 's', 'c', 'a', 'n') */
void report_diff(struct prof_row *now, size_t n_now, struct prof_row *base, size_t n_base, int sort_key,
		 const char *format, const char *now_dir, const char *base_dir);
/* the columns of a text --diff line (report's and graph's) before the
 * function's name: total, its change and percent ("new", "gone"), self
 * likewise, calls and their change */
void diff_columns(uint64_t total, uint64_t base_total, uint64_t self, uint64_t base_self, uint64_t calls,
		  uint64_t base_calls);
#define DIFF_HEADER \
	"  Total time         Diff         %   Self time         Diff         %      Calls     Diff  Function\n" \
	"  ==========  ===========  ========  ==========  ===========  ========  =========  =======  ========\n"

/* ---- progress.c ---- */
/* "fntrace: WHAT 42%" on stderr after a second of walking t, when stderr is a
 * terminal and the output is not (output_to_terminal: it is) */
void progress_begin(struct trace *t, const char *what, int output_to_terminal);
void progress_end(void);

/* ---- gzout.c: export -o FILE.gz ---- */
int gz_suffix(const char *path);      /* the name ends in .gz */
/* a stream that gzips into raw; fclose it to end the gzip data (raw stays open) */
FILE *gz_stream(FILE *raw);

/* ---- summary.c ---- */
/* what -P did to code built without instrumentation (FNT_META_PATCH) */
struct patch_totals {
	uint64_t modules, patched, skipped, no_disasm;
	uint64_t short_pads;        /* patchable entries too short for the call (FNT_PATCH_SHORT_PAD) */
	uint64_t pads;              /* patchable entries selected (FNT_PATCH_PADS) */
};
struct trace_totals {
	uint64_t events, file_bytes, disk_bytes, lost;
	struct patch_totals patch;
};
void trace_totals(struct trace *t, struct trace_totals *out);   /* walks the trace once */
void trace_totals_walked(struct trace *t, struct trace_totals *out);   /* the same after a walk */
/* a mean of n durations summing to sum, rounded to the nearest ns (as the
 * views print it: 103.73 ns reads 0.104 us), 0 for none */
static inline uint64_t mean_ns(uint64_t sum, uint64_t n)
{
	return n ? sum / n + (sum % n >= n - n / 2) : 0;
}
/* coroutines: a machine stack named in SWITCH records by a hand-written
 * switch (the first stack pointer seen on it, bit 0 set; names from 2^55
 * are the runtime's own) */
static inline int stack_hand_named(uint64_t id)
{
	return (id & 1) && id < (1ull << 55);
}
/* ...two of them: fibers, whose switches away the runtime sees (not the
 * thread's own stack, which a handler's jump off its signal stack returns
 * to before the next hook writes the switch) */
static inline int stack_hand_pair(uint64_t from, uint64_t to)
{
	return stack_hand_named(from) && stack_hand_named(to);
}
void lost_kinds_text(const struct fnt_file_header *h, int all, char *out, size_t cap);
void human_count(char *buf, size_t len, uint64_t n);           /* 987, 12.3 K, 4.6 M */
void human_bytes(char *buf, size_t len, uint64_t n);           /* 512 B, 12.3 KB, 26.0 MB */
/* record's last line on stderr: "fntrace: wrote 'DIR': N events, SIZE (B/event), N lost";
 * 1 printed, 0 no events, -1 not readable; walked: the totals of a walk
 * already made (record_save_symtabs), else dir is walked */
int print_record_summary(const char *shown, const char *dir, const struct trace_totals *walked);
void patch_totals(const struct trace *t, struct patch_totals *pt);
/* the PATCH records of one process (or all: NULL), each once (summary.c); free it */
const struct trace_patch **patch_records(const struct trace *t, const struct trace_process *only, size_t *n);
int patch_of_module(unsigned what);
void print_patch_totals(const struct patch_totals *pt);   /* one line on stderr */
const char *patch_reason(unsigned what);                  /* FNT_PATCH_* in words */

struct strlist {
	const char **v;
	size_t n;
};
void strlist_add(struct strlist *l, const char *s);

/* ---- trigger.c: -T FUNC@ACTION[,ACTION...] ---- */
#define TRIG_ON        1u
#define TRIG_OFF       2u
#define TRIG_BACKTRACE 4u
#define TRIG_FINISH    8u
#define TRIG_SNAPSHOT  16u
#define TRIG_TIME      32u
#define TRIG_DEPTH     64u
#define TRIG_HIDE      128u
#define TRIG_FILTER    256u
#define TRIG_NOTRACE   512u
struct trigger {
	char *glob;
	unsigned flags;          /* TRIG_* */
	int depth;               /* depth=N */
	uint64_t time_ns;        /* time=DUR */
};
/* parse arg into g or die with a usage error (record: snapshot is allowed) */
void trigger_parse(struct trigger *g, const char *arg, int record);
char *trigger_record_text(const struct trigger *g);    /* malloc'd "GLOB@ACTION,..." */

/* ---- view.c: options and naming shared by replay/report/info ---- */
struct view_opts {
	const char *dir;
	struct strlist debug_dirs, prefix_map;
	char *home[3];                    /* view_open: DIR/symtab, ../symtab (snapshot), DIR/debug (archive) */
	int no_demangle;
	int demangle;                     /* --demangle: enum symbols_demangle */
	uint32_t *tids;
	size_t n_tids;
	struct strlist filter, notrace;   /* -F, -N globs */
	struct strlist hide;              /* -H globs: not shown, their callees one level up */
	struct strlist callers;           /* -C globs: only these and the calls that lead to them */
	struct trigger *triggers;         /* -T: the triggers with actions other than filter/notrace/hide */
	size_t n_triggers;
	char **trigger_globs;             /* every -T glob (the strlists above point into them) */
	size_t n_trigger_globs;
	int max_depth;                    /* -D, 0 = unlimited */
	uint64_t min_ns;                  /* -t: only calls that lasted at least this */
	/* --since/--until: only calls overlapping [since_ns, until_ns] of the
	 * trace's time (ns from the start of the recording) */
	uint64_t since_ns, until_ns;
	int has_until;
	/* live views (replay --follow, live): the walk stops before the first
	 * event after horizon_ns, and a thread's data running out does not
	 * close its open calls (more may be written) */
	int live;
	uint64_t horizon_ns;
	int no_pager;                     /* --no-pager */
	int color;                        /* --color: 0 auto, 1 always, -1 never */
};

/* Long options every reading command takes; returns 1 if opt was one of them. */
#define VIEW_LONGOPTS \
	{ "data", required_argument, NULL, 'd' }, \
	{ "debug-dir", required_argument, NULL, 0x100 }, \
	{ "prefix-map", required_argument, NULL, 0x101 }, \
	{ "no-demangle", no_argument, NULL, 0x102 }, \
	{ "no-pager", no_argument, NULL, 0x140 }, \
	{ "color", required_argument, NULL, 0x141 }, \
	{ "colour", required_argument, NULL, 0x141 }, \
	{ "demangle", required_argument, NULL, 0x120 }
/* the help lines of --no-pager and --color, for the commands that page */
#define PAGER_HELP \
	"      --no-pager         do not page the output on a terminal ($FNTRACE_PAGER,\n" \
	"                         $PAGER or less otherwise)\n" \
	"      --color WHEN       colour durations by size: auto (on a terminal),\n" \
	"                         always or never\n"
/* the help lines of --tid, -F, -N, -H and -C of FILTER_LONGOPTS below, the
 * same in every reading command (-T's are TRIGGER_HELP, --since's and
 * --until's TIME_RANGE_HELP) */
#define FILTER_HELP \
	"      --tid TID[,TID]    only these threads\n" \
	"  -F, --filter FUNC      only calls under FUNC (glob, repeatable)\n" \
	"  -N, --notrace FUNC     leave out FUNC and its callees (glob, repeatable)\n" \
	"  -H, --hide FUNC        leave out FUNC itself; what it calls moves up a level\n" \
	"  -C, --caller-filter FUNC  only FUNC and the calls that lead to it (its\n" \
	"                         callers, up to the thread's first frame)\n"
#define FILTER_LONGOPTS \
	{ "tid", required_argument, NULL, 0x110 }, \
	{ "filter", required_argument, NULL, 'F' }, \
	{ "notrace", required_argument, NULL, 'N' }, \
	{ "hide", required_argument, NULL, 'H' }, \
	{ "caller-filter", required_argument, NULL, 'C' }, \
	{ "trigger", required_argument, NULL, 'T' }, \
	{ "depth", required_argument, NULL, 'D' }, \
	{ "time-filter", required_argument, NULL, 't' }, \
	{ "since", required_argument, NULL, 0x111 }, \
	{ "until", required_argument, NULL, 0x112 }
/* the help lines of the options above that every command's usage repeats */
#define TIME_RANGE_HELP \
	"      --since TIME       only calls still running at or after TIME (1.5ms, 200us,\n" \
	"                         2s, 500ns: time since the recording started)\n" \
	"      --until TIME       only calls that started at or before TIME\n"
int view_opt(struct view_opts *o, int opt, const char *arg);
/* a number with a unit (ns, us, ms, s) -> ns; what: how the usage error names it */
uint64_t parse_time_unit(const char *opt, const char *arg, const char *what);

struct view {
	struct view_opts *opts;
	struct trace *trace;
	struct symbols *syms;
	char **names;            /* short names by func id, filled lazily */
	char **text_names;       /* view_text_name's, NULL: the name needs no escape */
	uint8_t *text_done;
	size_t n_text_names;
	char **full_names;
	char **sig_names;        /* full name without a template function's return type (NULL: the full name) */
	const char **src_file;   /* file:line of each function, lazily */
	int *src_line;
	size_t *name_len;
	uint8_t *src_done;
	uint8_t *filter_match;   /* 0 unknown, 1 no, 2 -F match, 4 -N match (bits) */
	struct trigger *trig_of; /* -T: the merged actions of each function (flags 0: none) */
	struct trigger_pass *short_calls;   /* time= triggers: the calls found too short (calls.c) */
	struct landing_chain *landing;   /* calls.c: the inline chains of exceptions' landing pads, by address */
	size_t n_names;
	/* set by a view's callback: calls_walk ends before the next batch (the
	 * frames still open are then ended as truncated); the view clears it */
	int stop_walk;
};

void view_open(struct view *v, struct view_opts *o);
/* out_file_check against v's trace and its modules (export, perf-inject -o) */
void view_check_output(const struct view *v, const char *out, const char *what);
/* live views: a view over a trace opened by the caller, with a symbolizer
 * that outlives it; view_detach closes the trace, keeps syms and opts */
void view_attach(struct view *v, struct view_opts *o, struct trace *t, struct symbols *syms);
void view_detach(struct view *v);
void view_close(struct view *v);
/* close a view whose options are a copy of another view's (a --diff base):
 * the option lists stay, for the view that owns them */
void view_close_borrowed(struct view *v);
const char *view_name(struct view *v, uint32_t func);
/* view_name for the text views: control characters escaped (text_escape) */
const char *view_text_name(struct view *v, uint32_t func);
const char *view_name_len(struct view *v, uint32_t func, size_t *len);
const char *view_full_name(struct view *v, uint32_t func);
/* the full name without the return type of a template function: what the
 * read-time globs are matched against (with the short name) */
const char *view_sig_name(struct view *v, uint32_t func);
/* the function's module file was read as the traced build (no warning) */
int view_module_readable(struct view *v, uint32_t func);
/* the kind of a constructor or destructor (sym_func.structor), or NULL */
const char *view_structor(struct view *v, uint32_t func);
/* Labels that tell apart functions shown under one name (overloads, static
 * functions of one name in several files, a class's constructors of each
 * kind): for each funcs[i] whose displayed name another, different func of
 * the list shares, the signature when that tells them apart (without a
 * template function's return type), else "name [file.c]" ("name [kind,
 * file.c]" for a constructor or destructor), with the module after the
 * file when that is the same ("name [hdr.h, libx.so]"), and its address
 * when that is too ("name [hdr.h, libx.so+0x1139]"); NULL for the others.
 * The list may repeat a func.  Free with view_labels_free(labels, n). */
char **view_labels(struct view *v, const uint32_t *funcs, size_t n);
/* What tells a function from the others of its name whatever else ran, to
 * match it with itself in another trace (report and graph --diff): its
 * signature, constructor kind and source file (malloc'd) */
char *view_match_key(struct view *v, uint32_t func);
void view_labels_free(char **labels, size_t n);
/* 1 when the function's name already ends in its parameter list (a C++
 * function with --demangle full: "n::f(int)"): text views then write no
 * "()" after it, and recorded values as "n::f(int) with (1)" */
int view_name_has_params(struct view *v, uint32_t func);
/* the module file of the program `record` started: the executable of the
 * trace's first process (its first module), or TRACE_NO_FILE */
uint32_t view_program_file(const struct view *v);
int view_srcline(struct view *v, uint32_t func, const char **file, int *line);
int view_addr_srcline(struct view *v, uint32_t file, uint64_t vaddr, const char **src, int *line);
/* the (short) name of the function containing an arbitrary code address, or
 * NULL when no symbol covers it */
const char *view_addr_func(struct view *v, uint32_t file, uint64_t vaddr);
/* the symbol covering an arbitrary code address (its start and size): 0, or
 * -1 when none does (out then holds the module+0xoffset name) */
int view_addr_sym(struct view *v, uint32_t file, uint64_t vaddr, struct sym_func *out);
/* the file with the code of trace file `file` as traced (its build-id
 * checked), or NULL and *why (view.c) */
const char *view_file_code(struct view *v, uint32_t file, const char **why);
/* a pointer value of process p at trace time ns as "&name" or "&name+0x10"
 * when it lies inside a symbol (function or data) of a module; 0, or -1
 * (nothing written) */
int view_pointer_name(struct view *v, const struct trace_process *p, uint64_t ns, uint64_t addr, char *out,
		      size_t cap);
/* after a walk: warn about damage, lost events, untrusted modules */
void view_report_problems(struct view *v);
void view_no_events_hint(struct view *v);
/* ring traces: "history starts at ..." (a note on stderr), once per thread whose
 * oldest events were overwritten (view_report_problems prints them too) */
void view_history_notes(struct view *v);
/* -F/-N/-H/-C matches of a function: bit 0 -F, bit 1 -N, bit 2 -H, bit 4 -C, bit 5 a -T
 * trigger (cached per function) */
int view_filter_match(struct view *v, uint32_t func);
/* the -T actions of a function, merged over the globs that match it (flags 0: none) */
const struct trigger *view_trigger(struct view *v, uint32_t func);
/* the -T help lines of the reading commands */
#define TRIGGER_HELP \
	"  -T, --trigger FUNC@ACTION[,ACTION...]  when FUNC is called (a glob,\n" \
	"                         repeatable): trace_on, trace_off (show from, stop\n" \
	"                         showing from FUNC, per thread; with a trace_on each\n" \
	"                         thread starts off), depth=N (N levels from FUNC),\n" \
	"                         backtrace (its callers, replay), finish (nothing\n" \
	"                         after FUNC returns), time=DUR (FUNC's calls shorter\n" \
	"                         than DUR left out with their callees; uftrace's\n" \
	"                         time= hides the calls under FUNC shorter than DUR\n" \
	"                         instead: -F FUNC -t DUR here), hide, filter,\n" \
	"                         notrace (-H, -F, -N for FUNC).  depth=N on a\n" \
	"                         recursive FUNC counts from its outermost call\n" \
	"                         (uftrace restarts at each nested call)\n"


/* ---- calls.c: matched calls over the time-ordered (or per-thread) walk ---- */
struct frame {
	uint32_t func;
	uint64_t addr;
	uint64_t start_ns;
	uint64_t child_ns;       /* time spent in callees */
	uint64_t callsite;       /* where it was called from; 0: not known or not shown */
	uint64_t callsite_raw;   /* as recorded, even where callsite is not shown */
	uint32_t callsite_file;
	uint64_t callsite_vaddr;
	int depth;               /* display depth */
	int shown;               /* passes -F/-N/-D */
	int in_filter;           /* inside a -F subtree */
	int hidden;              /* inside a -N subtree (or a time= trigger's short call) */
	int in_n;                /* inside a -N subtree: no -C match there counts */
	int begun;               /* begin was handed to the view (so end will be) */
	int wait_t;              /* -t: shown once it has lasted min_ns, dropped if it ends sooner */
	int wait_c;              /* -C: shown once it turns out to lead to a -C function */
	int in_c;                /* -C: a -C function or inside one (its callees are not shown) */
	int inherited;           /* a forked child's frame entered in its parent: never begun, its
	                            return is an orphan (shown as such if the frame passes the filters) */
	int dlim;                /* depth=N trigger: calls at this display depth or deeper are not shown (0: none) */
	unsigned trig;           /* the -T actions of its function */
	const uint8_t *args;     /* raw ARGS payload (points into the trace) or NULL */
	uint32_t args_len;
	const uint8_t *ret;      /* raw RETVAL payload, set when the call returned */
	uint32_t ret_len;
	struct kept_stack *kept; /* stacks the trace holds from while it waited to be shown (-C, -t):
	                            the view gets them when it is begun (calls.c) */
};

/* how a call ended: CALL_MOVED, on this thread, because another thread
 * took its machine stack over (a fiber moved by its scheduler; its return
 * is the other thread's, an orphan there: ORPHAN_MOVED) */
/* CALL_GAP: the call was open where chunks of its thread are missing from
 * the file (TRACE_GAP): it ended somewhere in them */
/* CALL_OFF: open at the end of its thread's stream, recording being off
 * then (the file header's last switch): it may have returned unseen */
enum call_end { CALL_RETURN, CALL_UNWOUND, CALL_TRUNCATED, CALL_MOVED, CALL_GAP, CALL_OFF };
/* why an exit has no entry: entered before the trace or the process
 * began, or on another thread (a fiber's call, CALL_MOVED there) */
/* ORPHAN_GAP: after chunks missing (TRACE_GAP); ORPHAN_OFF: after recording
 * was off (a call entered then) */
enum call_orphan { ORPHAN_BEFORE, ORPHAN_MOVED, ORPHAN_GAP, ORPHAN_OFF };

struct calls_ops {
	void (*begin)(void *ctx, struct trace_thread *th, const struct frame *f);
	void (*end)(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns,
		    enum call_end how);
	/* an exit whose entry is not in the trace (a forked child leaving its
	 * parent's frames, a ring's call entered before its history), or is on
	 * another thread (a fiber's call): ev is the EXIT event, with its
	 * RETVAL payload if one was recorded */
	void (*orphan)(void *ctx, struct trace_thread *th, const struct trace_event *ev, int depth,
		       enum call_orphan why);
	void (*lost)(void *ctx, struct trace_thread *th, uint64_t count, uint64_t ns);
	/* fnt_mark(): depth is the display depth of a call at that point */
	void (*mark)(void *ctx, struct trace_thread *th, const char *text, size_t len, uint64_t ns, int depth);
	/* a call stack, innermost first, at display depth `depth`: a STACK record
	 * (fnt_capture_stack(), or a backtrace trigger at record time: ev, with
	 * n frames, funcs NULL) or a backtrace trigger at read time (ev NULL:
	 * funcs, the functions of the n open frames) */
	void (*stack)(void *ctx, struct trace_thread *th, const struct trace_event *ev, const uint32_t *funcs,
		      size_t n, uint64_t ns, int depth);
	/* coroutines: a begun frame, open on the machine stack the thread
	 * leaves (resumed 0, innermost first) or goes back to (resumed 1,
	 * outermost first), at the switch's time ns */
	void (*suspend)(void *ctx, struct trace_thread *th, const struct frame *f, int resumed, uint64_t ns);
	/* ...and then: the thread left machine stack `from` for `to` (0: its own) */
	void (*switched)(void *ctx, struct trace_thread *th, uint64_t from, uint64_t to);
};

/* walk the trace through the call layer; all_frames: call begin/end for
 * frames that do not pass the filters too (with f->shown == 0) */
int calls_walk(struct view *v, int by_time, const struct calls_ops *ops, void *ctx, int all_frames);
/* During a walk: whether the i-th frame (outermost first) a forked child's
 * thread inherited (trace_inherited) is shown by the filters and still open */
int calls_inherited_shown(struct trace_thread *th, size_t i);
/* whether function func was compiled by gcc (symbols_built_by_gcc) */
int view_built_by_gcc(struct view *v, uint32_t func);
/* the functions inlined at a code address (symbols_inline_names) */
size_t view_inline_names(struct view *v, uint32_t file, uint64_t vaddr, const char **names, size_t max);
/* An exception landed (TRACE_UNWIND_TO) in the innermost open call of
 * ev->func; funcs[0..n) are the calls open above it, outermost first.
 * How many of them hold the landing pad (ev->callsite), inlined into that
 * function (clang inlines a function with a try/catch into its caller,
 * hooks and all): those are not left, only the calls above them */
size_t calls_landing_kept(struct view *v, const struct trace_event *ev, const uint32_t *funcs, size_t n);
/* how a call that did not return ended, in words ("unwound", "exec",
 * "trace ended", "moved to another thread"...); NULL for CALL_RETURN */
const char *call_end_text(const struct trace_thread *th, enum call_end how);
void calls_release(struct view *v);    /* what the walks kept for the view (time= triggers) */
#define TRACE_NO_FUNC UINT32_MAX
/* cmd-stacks.c: one frame of a call stack as `stacks` prints it */
void stack_frame_text(struct view *v, const struct trace_event *ev, size_t i, uint32_t func, char *buf, size_t cap);

/* cmd-replay.c: print the replay of a trace being written until it is
 * complete (recorder > 0: until that process exits; its wait status goes
 * to *status) or Ctrl-C.  not_before: CLOCK_REALTIME ns; a trace whose
 * session started earlier is an old one about to be moved away: wait */
int replay_follow(struct view_opts *o, int time, int srcline, const char *fields, int recorder, int *status,
		  uint64_t not_before);
/* a --fields list: a usage error naming the bad field, or nothing */
void replay_fields_check(const char *fields);

/* ---- args.c: argument / return values as text ---- */
/* Format the payload of a function whose spec text is spec_text (from
 * trace_argspec), in a file of format `version` (its process's
 * hdr.version: fixed-size items take their size from version 4, 8 bytes
 * before): its argN/fpargN items (is_ret 0) or its retval (is_ret 1),
 * comma-separated, into out (NUL-terminated).  Returns the length; 0 when
 * there is nothing to show. */
size_t args_format(const char *spec_text, uint32_t version, const uint8_t *payload, size_t len, int is_ret, char *out,
		   size_t cap);
/* The same in two steps, for a view that formats both sides of a call:
 * the spec text parsed (NULL when there is none or it does not parse;
 * valid until args_forget), then a side formatted by it */
struct args_spec;
const struct args_spec *args_spec(const char *spec_text, uint32_t version);
/* whether a parsed spec kept from an earlier args_spec() still holds
 * spec_text's parse (the cache is direct-mapped: another text may have
 * taken its slot).  Its first member is the text it was parsed from. */
static inline int args_spec_holds(const struct args_spec *as, const char *spec_text)
{
	return as && *(const char *const *)(const void *)as == spec_text;
}
size_t args_format_spec(const struct args_spec *as, const uint8_t *payload, size_t len, int is_ret, char *out,
			size_t cap);
/* The return value an orphan exit (ev, on thread th) carries, formatted as
 * args_format does: an exit whose entry is not in the trace still has its
 * RETVAL record.  0 when there is none. */
size_t args_orphan_retval(const struct trace_thread *th, const struct trace_event *ev, char *out, size_t cap);
/* args_format parses each spec text once and knows it by its address from
 * then on: call this before the texts it was given are freed or changed
 * (view_close and view_detach do, for the trace's ARGSPEC texts) */
void args_forget(void);
/* Pointers (/p) print as &symbol+0xoff when they point inside a symbol of a
 * module: args_format names them with the view given here (view_open sets
 * it) and the module map of process p at time ns (set before formatting a
 * call's values; without it, or for a NULL p, they print in hex). */
void args_symbols(struct view *v, int (*name)(struct view *v, const struct trace_process *p, uint64_t ns,
						 uint64_t addr, char *out, size_t cap));
void args_where(const struct trace_process *p, uint64_t ns);
/* The argument payload (is_ret 0) args_format last read, and forgetting
 * it: the call layer hands a call's arguments back to the reader
 * (trace_payload_done) only when its view read them at the call's end */
const uint8_t *args_last_read(void);
void args_read_clear(void);

/* ---- autoargs.c: record --auto-args ---- */
/* "func@items;..." for every function of the program with DWARF, or NULL */
char *autoargs_specs(const char *path, size_t *count);
/* libc-protos.c: --auto-args specs of common libc functions (library calls) */
const char *libc_auto_specs(void);
/* the first FUNC glob of the -A/-R specs ("f@items;g@items") that names a
 * function the program defines and none it imports (malloc'd), or NULL */
char *libcall_unserved_spec(const char *prog, const char *specs);

/* ---- record-symtab.c: the modules a trace uses, their saved symbol tables ---- */
struct addr_set;
struct used_module {                  /* a module file with events: path + build-id */
	char *path;
	uint8_t build_id[32];
	uint8_t build_id_len;
	struct addr_set *funcs;       /* file vaddrs of the functions that appear */
	struct addr_set *addrs;       /* call sites and stack frames (minus 1) shown with a line */
	int all;                      /* not walked: every function and slot, no lines */
};
struct used_modules {
	struct used_module *v;
	size_t n;
	struct trace_totals *totals;  /* if set before collect: the top trace's totals */
	int snapshots;                /* set before collect: walk dir's snapshot-* too */
};
/* walk the trace at dir (and its snapshot-* if u->snapshots); -1 if dir is not a trace */
int used_modules_collect(struct used_modules *u, const char *dir);
void used_modules_release(struct used_modules *u);
/* DIR/symtab/<build-id>.sym for every module with events whose file still
 * has its recorded build-id (a warning for the others); modes of the trace */
/* tt: walk the events (the functions that appear, their lines, call sites
 * and stack frames) and give the trace's totals, 0; tt NULL: no walk, every
 * function name and GOT slot of each instrumented module of the module map,
 * no lines, -1 (runtime, if not NULL: the file record preloaded, whose
 * table is left out).  -1 too if dir is not a trace. */
struct stat;
int record_save_symtabs(const char *dir, unsigned file_mode, unsigned dir_mode, struct trace_totals *tt,
			const struct stat *runtime);
/* cmd-record.c: bit 0 -finstrument-functions, 1 __fentry__, 2 mcount, 3 patchable entries,
 * FUNC_SYMBOLS: a function it defines has a symbol (not so when stripped), and
 * CYG_IMPORTED: it calls __cyg_profile_func_enter from another module (bit 0
 * is set by a definition too: libc's empty one, the runtime's, or the runtime
 * linked into a program statically) */
#define FUNC_SYMBOLS 32
#define CYG_IMPORTED 64
#define OWN_RUNTIME 128     /* it carries the runtime: linked with libfntrace.a (its .note.fntrace) */
int instrumentation_of(const char *path);
/* while the program runs: the tables of each snapshot as soon as it is
 * complete (the modules are most likely the traced ones then) */
struct symtab_watch {
	const char *dir;
	unsigned file_mode, dir_mode;
	int64_t next_ns;
	struct seen_snapshot *seen;
	size_t n;
};
void symtab_watch_tick(struct symtab_watch *w);   /* cheap; looks twice a second */
void symtab_watch_release(struct symtab_watch *w);

/* ---- commands ---- */
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_stacks(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_tui(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_perf_script(int argc, char **argv);
int cmd_perf_inject(int argc, char **argv);

#endif
