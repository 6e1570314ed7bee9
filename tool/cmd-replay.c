/*
 * cmd-replay.c - `fntrace replay`: every call, nested, per thread, with
 * durations, in time order across threads and processes.  A leaf call is
 * printed on one line; that needs one event of look-ahead per thread, kept
 * as the thread's pending entry.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tool/outbuf.h"
#include "tool/tool.h"
#include "format/safeio.h"

static const char replay_usage[] =
	"usage: fntrace replay [options]\n\n"
	"Show the recorded calls in time order, nested per thread, with durations.\n\n"
	"  -d, --data DIR         trace directory (default: fntrace.data)\n"
	FILTER_HELP
	TRIGGER_HELP
	"  -D, --depth N          show at most N levels\n"
	"  -t, --time-filter TIME only calls that took at least TIME (5us, 1ms)\n"
	TIME_RANGE_HELP
	"      --time             print the wall-clock time of each line, first (the\n"
	"                         'time' column of --fields, added to its list)\n"
	"      --fields LIST      the columns before each call, in order: duration,\n"
	"                         tid, time (wall clock), elapsed (since the start of\n"
	"                         the recording), delta (since the line before),\n"
	"                         self (self time), module, addr (the function's\n"
	"                         address), srcline (file:line), or none (default:\n"
	"                         duration,tid)\n"
	"      --srcline          print file:line of each function (and of the call\n"
	"                         site when recorded with 'record --callsite')\n"
	"      --debug-dir DIR    also look for debug files under DIR (repeatable)\n"
	"      --prefix-map OLD=NEW  read module files from NEW where OLD was recorded\n"
	"      --no-demangle      keep C++ names mangled\n"
	"      --demangle MODE    C++ names: short (default), full, simple or no\n"
	"      --follow           the trace is being written: print calls as they\n"
	"                         become final (within a second) until the recording\n"
	"                         ends or Ctrl-C\n"
	"  -r, --time-range START~END  only the lines in the window: calls open at START\n"
	"                         are shown as opening lines, and those open at END\n"
	"                         are left open; START and END are times since the\n"
	"                         start of the recording (10ms~25ms) or wall-clock\n"
	"                         times as --fields time prints them; either may be\n"
	"                         left out (10ms~)\n"
	"  -f, --format FMT       text (default) or json: one JSON object per call, in\n"
	"                         the order calls end (doc/args.md): name, tid, times,\n"
	"                         depth, args, retval\n"
	PAGER_HELP
	"  -h, --help             this help\n";

/* --fields: the columns before "| FUNCTION" */
enum field { F_DURATION, F_TID, F_TIME, F_ELAPSED, F_DELTA, F_SELF, F_MODULE, F_ADDR, F_SRCLINE, F_NONE };
static const char *const field_names[] = {
	"duration", "tid", "time", "elapsed", "delta", "self", "module", "addr", "srcline", "none",
};
static const char *const field_heads[] = {
	" DURATION  ", "    TID   ", "  TIME             ", "  ELAPSED  ", "   DELTA   ", "   SELF    ",
	"MODULE           ", "ADDRESS            ", "SRCLINE                  ", "",
};
#define MAX_FIELDS 9

struct replay {
	struct view *v;
	FILE *out;
	int time, srcline;
	uint64_t src_asked, src_found;   /* --srcline: lines that asked for a source line, and got one */
	uint8_t fields[MAX_FIELDS];   /* --fields, in order */
	int n_fields;                 /* 0: the default columns (duration, tid), on the fast path */
	uint64_t last_ns;             /* delta: the previous line's time */
	int cut;                      /* -r: lines after cut_end are not printed */
	uint64_t cut_end;
	char *buf;               /* output, written with fwrite when full */
	size_t len;
	struct trace_thread *pending_th[64];   /* threads holding a look-ahead entry */
	size_t n_pending;
	struct name_ref *names;  /* by func id: copies padded for 16-byte loads */
	size_t n_names;
	/* the spec texts of the functions last looked up, by func id: a line
	 * with values takes its spec from here, not from the trace's hash */
	struct spec_slot {
		const struct trace_process *proc;
		uint64_t addr;
		const char *spec;
		const struct args_spec *parsed;   /* its parse, while args_spec_holds it */
	} specs[64];
};

/* A function's short name, copied with NAME_PAD zero bytes after it so a
 * line can take it 16 bytes at a time.  Longer names than NAME_FAST go
 * through put_mem. */
#define NAME_PAD 16
#define NAME_FAST 4096
struct name_ref {
	char *s;
	size_t len;
	int params;              /* the name ends in its parameter list (view_name_has_params) */
};

struct pending {
	int has;
	struct frame f;
	char tid_str[24];        /* " [  4242] | " */
	uint8_t tid_len;
};

#define OUT_CAP (1u << 20)

static char *room(struct replay *r, size_t need)
{
	if (r->len + need > OUT_CAP) {
		fwrite(r->buf, 1, r->len, r->out);
		r->len = 0;
	}
	return r->buf + r->len;
}

static void put_mem(struct replay *r, const char *s, size_t n)
{
	if (n > OUT_CAP / 2)
		n = OUT_CAP / 2;
	memcpy(room(r, n), s, n);
	r->len += n;
}

static const struct name_ref *name_of(struct replay *r, uint32_t func)
{
	if (func < r->n_names && r->names[func].s)
		return &r->names[func];
	if (func >= r->n_names) {
		size_t n = r->n_names ? r->n_names : 256;
		while (n <= func)
			n *= 2;
		r->names = xrealloc(r->names, n * sizeof(*r->names));
		memset(r->names + r->n_names, 0, (n - r->n_names) * sizeof(*r->names));
		r->n_names = n;
	}
	struct name_ref *nr = &r->names[func];
	const char *s = view_text_name(r->v, func);    /* control characters escaped */
	nr->len = strlen(s);
	nr->s = xcalloc(1, nr->len + NAME_PAD);
	memcpy(nr->s, s, nr->len);
	nr->params = view_name_has_params(r->v, func);
	return nr;
}

/* the name at p, which has room for it plus 16 bytes of slack */
static inline char *copy_name(char *p, const struct name_ref *nr)
{
	for (size_t i = 0; i < nr->len; i += 16)
		memcpy(p + i, nr->s + i, 16);
	return p + nr->len;
}

static void put_name(struct replay *r, uint32_t func)
{
	const struct name_ref *nr = name_of(r, func);
	if (nr->len > NAME_FAST) {
		put_mem(r, nr->s, nr->len);
		return;
	}
	r->len = (size_t)(copy_name(room(r, nr->len + 16), nr) - r->buf);
}

static void put_str(struct replay *r, const char *s)
{
	size_t n = strlen(s);
	if (n > OUT_CAP / 2)
		n = OUT_CAP / 2;
	memcpy(room(r, n), s, n);
	r->len += n;
}

static void srcline(struct replay *r, const struct frame *f);
static char *fields_prefix(struct replay *r, struct trace_thread *th, const uint64_t *dur, uint64_t ns, int depth,
			   size_t extra, const struct frame *f);

/* "<duration>  [  tid] | <indent>": written at the end of the output,
 * with room after it for `extra` more bytes and 16 of slack; returns where
 * the line goes on.  The caller ends the line with line_done(). */
static char *prefix(struct replay *r, struct trace_thread *th, const uint64_t *dur, uint64_t ns, int depth,
		    size_t extra, const struct frame *f)
{
	char *p;
	if (depth < 0)
		depth = 0;
	if (depth > 4096)
		depth = 4096;
	if (__builtin_expect(r->n_fields != 0, 0))
		return fields_prefix(r, th, dur, ns, depth, extra, f);
	if (r->time) {
		uint64_t real = trace_ns_to_real(r->v->trace, ns);
		time_t sec = (time_t)(real / 1000000000ull);
		struct tm tm;
		char tbuf[64];
		localtime_r(&sec, &tm);
		size_t n = strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
		snprintf(tbuf + n, sizeof(tbuf) - n, ".%09u ", (unsigned)(real % 1000000000ull));
		put_str(r, tbuf);
	}
	p = room(r, 64 + 2 * (size_t)depth + extra);
	if (dur) {
		*p++ = ' ';
		p = put_duration_color(p, *dur);
	} else {
		memset(p, ' ', 11);
		p += 11;
	}
	struct pending *pd = th->view_aux;
	if (!pd->tid_len) {
		pd->tid_len = (uint8_t)snprintf(pd->tid_str, sizeof(pd->tid_str), " [%6u] | ", th->tid);
	}
	memcpy(p, pd->tid_str, 16);
	p += pd->tid_len;
	/* indentation with 16-byte stores; room() left slack for the overrun */
	for (int i = 0; i < 2 * depth; i += 16)
		memcpy(p + i, "                ", 16);
	return p + 2 * depth;
}

static inline void line_done(struct replay *r, char *p)
{
	r->len = (size_t)(p - r->buf);
}

/* a duration column (11 wide, blank when unknown) */
static void put_dur_field(struct replay *r, const uint64_t *ns)
{
	char *p = room(r, 32);
	if (ns) {
		*p++ = ' ';
		p = put_duration_color(p, *ns);
	} else {
		memset(p, ' ', 11);
		p += 11;
	}
	*p++ = ' ';
	line_done(r, p);
}

/* --fields: the chosen columns, then " | " and the indentation */
static char *fields_prefix(struct replay *r, struct trace_thread *th, const uint64_t *dur, uint64_t ns, int depth,
			   size_t extra, const struct frame *f)
{
	char buf[4200];
	for (int i = 0; i < r->n_fields; i++) {
		switch (r->fields[i]) {
		case F_DURATION:
			put_dur_field(r, dur);
			break;
		case F_TID:
			snprintf(buf, sizeof(buf), "[%6u] ", th->tid);
			put_str(r, buf);
			break;
		case F_TIME: {
			uint64_t real = trace_ns_to_real(r->v->trace, ns);
			time_t sec = (time_t)(real / 1000000000ull);
			struct tm tm;
			localtime_r(&sec, &tm);
			size_t n = strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
			snprintf(buf + n, sizeof(buf) - n, ".%09u ", (unsigned)(real % 1000000000ull));
			put_str(r, buf);
			break;
		}
		case F_ELAPSED:
			put_dur_field(r, &ns);
			break;
		case F_DELTA: {
			uint64_t d = ns > r->last_ns ? ns - r->last_ns : 0;
			put_dur_field(r, &d);
			break;
		}
		case F_SELF: {
			uint64_t self = dur && f ? (*dur > f->child_ns ? *dur - f->child_ns : 0) : 0;
			put_dur_field(r, dur && f ? &self : NULL);
			break;
		}
		case F_MODULE: {
			const char *m = "";
			if (f && f->func < r->v->trace->n_funcs && r->v->trace->funcs[f->func].file != TRACE_NO_FILE) {
				m = r->v->trace->files[r->v->trace->funcs[f->func].file].path;
				const char *b = strrchr(m, '/');
				m = b ? b + 1 : m;
			}
			char esc[64];
			snprintf(buf, sizeof(buf), "%-16s ", text_safe(m, esc, sizeof(esc)));
			put_str(r, buf);
			break;
		}
		case F_ADDR:
			if (f)
				snprintf(buf, sizeof(buf), "0x%016" PRIx64 " ", f->addr);
			else
				snprintf(buf, sizeof(buf), "%19s", "");
			put_str(r, buf);
			break;
		case F_SRCLINE: {
			const char *file;
			int line;
			buf[0] = 0;
			r->src_asked += f && view_module_readable(r->v, f->func);
			if (f && !view_srcline(r->v, f->func, &file, &line)) {
				r->src_found++;
				const char *b = strrchr(file, '/');
				snprintf(buf, sizeof(buf), "%s:%d", b ? b + 1 : file, line);
			}
			put_str(r, buf);
			put_str(r, strlen(buf) < 24 ? "                         " + strlen(buf) : " ");
			break;
		}
		default:
			break;
		}
	}
	r->last_ns = ns;
	char *p = room(r, 64 + 2 * (size_t)depth + extra);
	memcpy(p, "| ", 2);
	p += 2;
	for (int i = 0; i < 2 * depth; i += 16)
		memcpy(p + i, "                ", 16);
	return p + 2 * depth;
}

/* "duration,tid,self": into r->fields; the usage error names the bad one */
static void parse_fields(struct replay *r, const char *arg)
{
	char *copy = xmalloc(strlen(arg) + 1), *save = NULL;
	strcpy(copy, arg);
	r->n_fields = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = -1;
		for (int i = 0; i <= F_NONE; i++)
			if (!strcmp(t, field_names[i]))
				k = i;
		if (k < 0)
			die_usage("option '--fields': unknown field '%s' (duration, tid, time, elapsed, delta, self, "
				  "module, addr, srcline, none)", t);
		if (k == F_NONE)
			continue;
		if (r->n_fields == MAX_FIELDS)
			die_usage("option '--fields': at most %d fields", MAX_FIELDS);
		r->fields[r->n_fields++] = (uint8_t)k;
	}
	free(copy);
	if (!r->n_fields)
		r->n_fields = -1;       /* "none": no columns at all */
	else if (r->n_fields == 2 && r->fields[0] == F_DURATION && r->fields[1] == F_TID)
		r->n_fields = 0;        /* the default columns, on the fast path */
}

/* --time is the wall-clock column in front of the others: the default
 * columns become time,duration,tid (so the header names it), and a
 * --fields list without time gets it first */
static void time_field(struct replay *r)
{
	if (!r->time)
		return;
	if (r->n_fields == 0) {
		r->fields[0] = F_TIME;
		r->fields[1] = F_DURATION;
		r->fields[2] = F_TID;
		r->n_fields = 3;
		return;
	}
	if (r->n_fields < 0) {
		r->fields[0] = F_TIME;
		r->n_fields = 1;
		return;
	}
	for (int i = 0; i < r->n_fields; i++)
		if (r->fields[i] == F_TIME)
			return;
	if (r->n_fields == MAX_FIELDS)
		die_usage("option '--fields': at most %d fields, --time included", MAX_FIELDS);
	memmove(r->fields + 1, r->fields, (size_t)r->n_fields);
	r->fields[0] = F_TIME;
	r->n_fields++;
}

/* a line: prefix, `pre`, the function's name, `post` (literals of at most
 * 16 bytes, or padded: 32 readable bytes, or longer), then the source lines with
 * --srcline, then a newline */
static inline __attribute__((always_inline)) void name_line(struct replay *r, struct trace_thread *th,
							    const uint64_t *dur, uint64_t ns, int depth,
							    const char *pre, size_t pre_len, uint32_t func,
							    const char *post, size_t post_len,
							    const struct frame *src, const struct frame *fr)
{
	const struct name_ref *nr = name_of(r, func);
	char *p;
	if (nr->params && post_len >= 2 && post[0] == '(' && post[1] == ')') {
		post += 2;           /* "n::f(int) {", not "n::f(int)() {" */
		post_len -= 2;
	}
	if (nr->len > NAME_FAST) {
		line_done(r, prefix(r, th, dur, ns, depth, 0, fr));
		put_mem(r, pre, pre_len);
		put_mem(r, nr->s, nr->len);
		put_mem(r, post, post_len);
		p = room(r, 1);
	} else {
		p = prefix(r, th, dur, ns, depth, pre_len + nr->len + (post_len > 32 ? post_len : 32) + 1, fr);
		memcpy(p, pre, pre_len);
		p = copy_name(p + pre_len, nr);
		if (post_len <= 16) {
			memcpy(p, post, post_len);
		} else if (post_len <= 32) {
			memcpy(p, post, 16);
			memcpy(p + 16, post + 16, 16);
		} else {
			memcpy(p, post, post_len);
		}
		p += post_len;
	}
	if (src && r->srcline) {
		line_done(r, p);
		srcline(r, src);
		p = room(r, 1);
	}
	*p++ = '\n';
	line_done(r, p);
}

static void srcline(struct replay *r, const struct frame *f)
{
	const char *file;
	int line;
	char buf[4200];
	if (!r->srcline)
		return;
	char esc[1100];        /* source file names are the program's text too */
	r->src_asked += view_module_readable(r->v, f->func);   /* (an unreadable module has its own warning) */
	if (!view_srcline(r->v, f->func, &file, &line)) {
		r->src_found++;
		const char *base = strrchr(file, '/');
		snprintf(buf, sizeof(buf), " [%s:%d]", text_safe(base ? base + 1 : file, esc, sizeof(esc)), line);
		put_str(r, buf);
	}
	if (f->callsite && !view_addr_srcline(r->v, f->callsite_file, f->callsite_vaddr - 1, &file, &line)) {
		const char *base = strrchr(file, '/');
		snprintf(buf, sizeof(buf), " [from %s:%d]", text_safe(base ? base + 1 : file, esc, sizeof(esc)), line);
		put_str(r, buf);
	}
}

/* A line of a call whose function has recorded values (the slow path
 * beside name_line): kind 0 opens "f(args) {", kind 1 is the leaf
 * "f(args) = ret;", kind 2 the closing "} = ret" with the function's name in
 * a comment.  Returns 0 (nothing written) when the function has no spec.
 * The values are formatted straight into the output, in room reserved
 * once for the whole line (ARGS_ROOM and RET_ROOM bytes at most). */
#define ARGS_ROOM 2048
#define RET_ROOM 512
static void newline(struct replay *r);

/* the name at p, in the room reserved for the line; a name longer than
 * NAME_FAST was given no room there: it goes through put_mem, and `more`
 * bytes are reserved again after it */
static inline char *name_at(struct replay *r, char *p, const struct name_ref *nr, size_t more)
{
	if (nr->len <= NAME_FAST)
		return copy_name(p, nr);
	line_done(r, p);
	put_mem(r, nr->s, nr->len);
	return room(r, more);
}

static inline char *retval_at(char *p, const struct args_spec *spec, const struct frame *f)
{
	size_t n = args_format_spec(spec, f->ret, f->ret_len, 1, p + 3, RET_ROOM);
	if (!n)
		return p;
	memcpy(p, " = ", 3);
	return p + 3 + n;
}

static int values_line_(struct replay *r, struct trace_thread *th, const uint64_t *dur, uint64_t ns, int depth,
			const struct frame *f, int kind, enum call_end how, const char *why, size_t why_len)
{
	const char *text;
	const struct args_spec *spec;
	struct spec_slot *ss = &r->specs[f->func % 64];
	if (f->addr == ss->addr && th->proc == ss->proc) {
		text = ss->spec;
	} else {
		text = trace_argspec(th->proc, f->addr);
		ss->proc = th->proc;
		ss->addr = f->addr;
		ss->spec = text;
		ss->parsed = NULL;
	}
	if (!text)
		return 0;
	if (!args_spec_holds(ss->parsed, text) && !(ss->parsed = args_spec(text, th->proc->hdr.version)))
		return 0;
	spec = ss->parsed;
	args_where(th->proc, f->start_ns);     /* pointers named by the module map of the call */
	const struct name_ref *nr = name_of(r, f->func);
	size_t more = ARGS_ROOM + RET_ROOM + 64 + why_len;
	char *p = prefix(r, th, dur, ns, depth, (nr->len > NAME_FAST ? 0 : nr->len + 16) + more, f);
	if (kind == 2) {
		*p++ = '}';
		if (how == CALL_RETURN)
			p = retval_at(p, spec, f);
		memcpy(p, " /* ", 4);
		p = name_at(r, p + 4, nr, more);
		memcpy(p, why, why_len);
		p += why_len;
		*p++ = '\n';
		line_done(r, p);
		return 1;
	}
	p = name_at(r, p, nr, more);
	if (!nr->params) {
		*p++ = '(';
		p += args_format_spec(spec, f->args, f->args_len, 0, p, ARGS_ROOM);
		*p++ = ')';
	} else {
		/* the signature is there already: the values after it, if any */
		size_t n = args_format_spec(spec, f->args, f->args_len, 0, p + 7, ARGS_ROOM);
		if (n) {
			memcpy(p, " with (", 7);
			p += 7 + n;
			*p++ = ')';
		}
	}
	if (kind == 1) {
		if (how == CALL_RETURN)
			p = retval_at(p, spec, f);
		*p++ = ';';
	} else {
		memcpy(p, " {", 2);
		p += 2;
	}
	line_done(r, p);
	srcline(r, f);
	newline(r);
	return 1;
}

/* a line with the call's values, if its process has any spec (else 0, and
 * the caller prints the plain line): the test inline, since most traces
 * have none and every line of replay asks */
static inline int values_line(struct replay *r, struct trace_thread *th, const uint64_t *dur, uint64_t ns, int depth,
			      const struct frame *f, int kind, enum call_end how, const char *why, size_t why_len)
{
	return th->proc->n_argspecs && values_line_(r, th, dur, ns, depth, f, kind, how, why, why_len);
}

/* per-thread look-ahead, hung on the thread */
static struct pending *slot(struct trace_thread *th)
{
	if (!th->view_aux)
		th->view_aux = xcalloc(1, sizeof(struct pending));
	return th->view_aux;
}

static void newline(struct replay *r)
{
	*room(r, 1) = '\n';
	r->len++;
}

static void flush_pending(struct replay *r, struct trace_thread *th, struct pending *p)
{
	if (!p->has)
		return;
	for (size_t i = 0; i < r->n_pending; i++)
		if (r->pending_th[i] == th) {
			r->pending_th[i] = r->pending_th[--r->n_pending];
			break;
		}
	if (!values_line(r, th, NULL, p->f.start_ns, p->f.depth, &p->f, 0, CALL_RETURN, NULL, 0))
		name_line(r, th, NULL, p->f.start_ns, p->f.depth, "", 0, p->f.func, "() {", 4, &p->f, &p->f);
	else    /* read after the walk may have left its chunk: hand it back, or it stays mapped */
		trace_payload_done(th, p->f.args, p->f.args_len);
	p->has = 0;
}

/* A line of thread th is about to be printed: the look-ahead entries of
 * other threads are older, so they go out first (time order wins over
 * folding a leaf onto one line). */
static void flush_others(struct replay *r, struct trace_thread *th)
{
	for (size_t i = 0; i < r->n_pending;) {
		struct trace_thread *o = r->pending_th[i];
		if (o == th) {
			i++;
			continue;
		}
		flush_pending(r, o, o->view_aux);   /* removes entry i */
	}
}

/* whether a thread other than th holds a look-ahead entry */
static inline int others_pending(const struct replay *r, const struct trace_thread *th)
{
	return r->n_pending > 1 || (r->n_pending == 1 && r->pending_th[0] != th);
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	struct replay *r = ctx;
	struct pending *p = slot(th);
	if (others_pending(r, th))
		flush_others(r, th);
	flush_pending(r, th, p);
	if (r->n_pending == sizeof(r->pending_th) / sizeof(r->pending_th[0]))
		flush_others(r, th);
	p->f = *f;
	p->has = 1;
	r->pending_th[r->n_pending++] = th;
}

/* how a call ended, padded so a line can take 32 bytes at once (the
 * longer one, 48) */
static const char why_text[7][48] = {
	" */", " (no return: unwound) */", " (no return: exec) */", " (no return: trace ended) */",
	" (no return: moved to another thread) */", " (no return: trace data missing) */",
	" (no return: recording was off) */",
};
static const uint8_t why_len[7] = { 3, 24, 21, 28, 40, 35, 34 };

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct replay *r = ctx;
	struct pending *p = slot(th);
	uint64_t dur = end_ns - f->start_ns;
	int why = how == CALL_UNWOUND ? 1 :
		  how == CALL_TRUNCATED && th->proc->exec_replaced ? 2 :
		  how == CALL_TRUNCATED ? 3 : how == CALL_MOVED ? 4 : how == CALL_GAP ? 5 : how == CALL_OFF ? 6 : 0;

	if (others_pending(r, th))
		flush_others(r, th);
	if (r->cut && end_ns > r->cut_end) {
		/* -r: the call is still open at the end of the window: an opening
		 * line if it was waiting to be folded into one, no closing line */
		flush_pending(r, th, p);
		return;
	}
	if (p->has && p->f.start_ns == f->start_ns && p->f.addr == f->addr && p->f.depth == f->depth &&
	    how == CALL_RETURN) {
		for (size_t i = 0; i < r->n_pending; i++)
			if (r->pending_th[i] == th) {
				r->pending_th[i] = r->pending_th[--r->n_pending];
				break;
			}
		p->has = 0;
		if (!values_line(r, th, &dur, end_ns, f->depth, f, 1, how, NULL, 0))
			name_line(r, th, &dur, end_ns, f->depth, "", 0, f->func, "();", 3, f, f);
		return;
	}
	flush_pending(r, th, p);
	if (!values_line(r, th, how == CALL_RETURN ? &dur : NULL, end_ns, f->depth, f, 2, how, why_text[why],
			 why_len[why]))
		name_line(r, th, how == CALL_RETURN ? &dur : NULL, end_ns, f->depth, "} /* ", 5, f->func,
			  why_text[why], why_len[why], NULL, f);
}

static void on_orphan(void *ctx, struct trace_thread *th, const struct trace_event *ev, int depth,
		      enum call_orphan why)
{
	struct replay *r = ctx;
	char ret[RET_ROOM];
	size_t n;
	flush_others(r, th);
	flush_pending(r, th, slot(th));
	n = args_orphan_retval(th, ev, ret, sizeof(ret));
	line_done(r, prefix(r, th, NULL, ev->ns, depth, 0, NULL));
	put_mem(r, "}", 1);
	if (n) {
		put_mem(r, " = ", 3);
		put_mem(r, ret, n);
	}
	put_mem(r, " /* ", 4);
	put_name(r, ev->func);
	put_str(r, why == ORPHAN_MOVED ? " (entered on another thread) */" :
		why == ORPHAN_GAP ? " (entered where trace data is missing) */" :
		why == ORPHAN_OFF ? " (entered while recording was off) */" :
		th->first_seq && (th->proc->hdr.flags & FNT_FLAG_RING) ?
		" (entered before the history start) */" : " (entered before this process began) */");
	newline(r);
}

static void on_mark(void *ctx, struct trace_thread *th, const char *text, size_t len, uint64_t ns, int depth)
{
	struct replay *r = ctx;
	flush_others(r, th);
	flush_pending(r, th, slot(th));
	line_done(r, prefix(r, th, NULL, ns, depth, 0, NULL));
	put_mem(r, "/* mark: ", 9);
	if (text_escaped_len(text, len) == len) {
		put_mem(r, text, len);
	} else {                /* the program's text: a newline would split the line */
		if (len > OUT_CAP / 8)
			len = OUT_CAP / 8;
		char *e = text_escape(room(r, 4 * len), text, len);
		line_done(r, e);
	}
	put_mem(r, " */", 3);
	newline(r);
}

/* How many frames of a recorded stack replay shows: down to main, or,
 * without one (a thread, a coroutine, a binary without its symbols), all
 * but the frames that start the thread (the trailing ones in the module of
 * the outermost: libc's start_thread and clone3; a coroutine's start).
 * What is below is libc's, which `fntrace stacks` shows.  Not down to the
 * outermost call the trace holds open: under record -F that was the -F
 * function itself, a backtrace of one frame. */
static size_t stack_shown(struct replay *r, const struct trace_event *ev, size_t n)
{
	const struct trace_body *b = ev->body;
	size_t k = n;
	for (size_t i = 0; i < n; i++) {
		const char *name = b->stack_file[i] == TRACE_NO_FILE ? NULL :
				   view_addr_func(r->v, b->stack_file[i], b->stack_vaddr[i] - 1);
		if (name && !strcmp(name, "main"))
			return i + 1;
	}
	while (k > 1 && b->stack_file[k - 2] == b->stack_file[n - 1])
		k--;
	return k > 1 ? k - 1 : n;
}

/* a call stack (fnt_capture_stack(), a backtrace trigger): one comment
 * line a frame, as `fntrace stacks` writes them; a read-time trigger's
 * (no ev) is the calls open, a recorded one ends as stack_shown says */
static void on_stack(void *ctx, struct trace_thread *th, const struct trace_event *ev, const uint32_t *funcs,
		     size_t n, uint64_t ns, int depth)
{
	struct replay *r = ctx;
	char text[1100];
	flush_others(r, th);
	flush_pending(r, th, slot(th));
	if (ev && n)
		n = stack_shown(r, ev, n);
	for (size_t i = 0; i < n; i++) {
		line_done(r, prefix(r, th, NULL, ns, depth, 0, NULL));
		put_mem(r, "/* stack ", 9);
		stack_frame_text(r->v, ev, i, ev ? TRACE_NO_FUNC : funcs[i], text, sizeof(text));
		put_str(r, text);
		put_mem(r, " */", 3);
		newline(r);
	}
}

static void on_lost(void *ctx, struct trace_thread *th, uint64_t count, uint64_t ns)
{
	struct replay *r = ctx;
	char buf[64];
	flush_others(r, th);
	flush_pending(r, th, slot(th));
	line_done(r, prefix(r, th, NULL, ns, 0, 0, NULL));
	snprintf(buf, sizeof(buf), "/* %" PRIu64 " events lost here */", count);
	put_str(r, buf);
	newline(r);
}

/* ---- following a trace being written ----
 *
 * Each poll opens the trace afresh and replays it up to a horizon a little
 * in the past (LIVE_WINDOW_NS, or the -t threshold it was recorded with if
 * that is longer: an entry that old can no longer be erased), without
 * closing what is still open.  Replay is an online algorithm over the
 * time-ordered events, so the lines of a shorter prefix are the first lines
 * of a longer one: each poll prints only the lines after those already
 * printed.  The last poll, once the recording is over, is an ordinary
 * replay; what was printed is then what `fntrace replay` prints (durations
 * shown early were converted with the clock calibration known then). */
#define LIVE_WINDOW_NS 300000000ull
#define LIVE_POLL_NS 200000000ull

struct line_skip {
	uint64_t skip, seen;     /* lines to drop, lines seen */
};

static ssize_t skip_write(void *cookie, const char *buf, size_t n)
{
	struct line_skip *ls = cookie;
	size_t i = 0;
	while (i < n && ls->seen < ls->skip) {
		const char *nl = memchr(buf + i, '\n', n - i);
		if (!nl)
			return (ssize_t)n;
		ls->seen++;
		i = (size_t)(nl - buf) + 1;
	}
	if (i < n) {
		for (size_t k = i; k < n; k++)
			ls->seen += buf[k] == '\n';
		fwrite(buf + i, 1, n - i, stdout);
	}
	return (ssize_t)n;
}

static volatile sig_atomic_t follow_stop;

static void on_sigint(int sig)
{
	(void)sig;
	follow_stop = 1;
}

/* the -t threshold a process was recorded with (FILTERS meta record) */
/* the longest erasure the recording may still make: -t TIME, a time=DUR trigger */
static uint64_t recorded_threshold(const struct trace *t)
{
	uint64_t max = 0;
	for (size_t i = 0; i < t->n_procs; i++) {
		const char *f = t->procs[i].filters;
		for (; f && *f; f = strchr(f, '\n') ? strchr(f, '\n') + 1 : "") {
			const char *tm = NULL;
			if (f[0] == 't' && f[1] == ' ')
				tm = f + 2;
			else if (f[0] == 'g' && f[1] == ' ') {     /* -T FUNC@...,time=NS: its subtree may go */
				const char *nl = strchr(f, '\n'), *at = strstr(f, "time=");
				tm = at && (!nl || at < nl) ? at + 5 : NULL;
			}
			uint64_t ns = tm ? strtoull(tm, NULL, 10) : 0;
			if (ns > max)
				max = ns;
		}
	}
	return max;
}

/* what the session file says: the recording is over (1), running (0),
 * or no session of ours yet (-1: none, or one started before not_before) */
static int session_state(const char *dir, uint64_t not_before)
{
	char path[4200], *text, *line;
	const char *why;
	size_t len;
	int done = 0;
	uint64_t start = 0;
	snprintf(path, sizeof(path), "%s/session", dir);
	/* a regular file only (a FIFO would block the poll), 64 KiB at most */
	text = fnt_read_small(path, FNT_OPEN_NOFOLLOW, 65536, &len, &why);
	if (!text && errno != ENOENT)
		die("'%s': %s (not a session written by 'fntrace record')", path, why);
	if (!text)
		return not_before ? -1 : 0;
	for (line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "wait_status=", 12))
			done = 1;
		if (!strncmp(line, "start_realtime_ns=", 18))
			start = strtoull(line + 18, NULL, 10);
	}
	free(text);
	if (not_before && start < not_before)
		return -1;
	return done;
}

void replay_fields_check(const char *fields)
{
	struct replay check = { 0 };
	parse_fields(&check, fields);
}

/* the header line: the columns --fields asked for, or the default ones */
static void put_header(struct replay *r)
{
	if (r->n_fields) {
		put_str(r, "#");
		for (int i = 0; i < r->n_fields; i++)
			put_str(r, field_heads[r->fields[i]]);
		put_str(r, "| FUNCTION\n");
	} else {
		put_str(r, "# DURATION     TID     FUNCTION\n");
	}
}

/* one poll; returns 0, or -1 when the trace cannot be read yet */
static int follow_pass(struct view_opts *o, struct symbols *syms, int time_, int srcline, const char *fields,
		       int final, struct line_skip *ls, int *had_events)
{
	static const struct calls_ops ops = { on_begin, on_end, on_orphan, on_lost, on_mark, on_stack, NULL, NULL };
	static const cookie_io_functions_t io = { .write = skip_write };
	char err[4400];
	struct trace *t;
	struct view v;

	if (trace_open(&t, o->dir, err, sizeof(err))) {
		if (final)
			die("%s", err);
		return -1;
	}
	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i].hdr.flags & FNT_FLAG_RING) {
			/* its chunks are rewritten in place: what a poll printed may be
			 * gone from the next one, which then cannot print "what follows" */
			die_usage("%s: a flight-recorder trace (record --ring) cannot be followed; "
				  "replay it when the recording has ended (or take a snapshot)", o->dir);
		}
	view_attach(&v, o, t, syms);
	o->live = !final;
	if (!final) {
		uint64_t lag = recorded_threshold(t), now = mono_now() - t->t0_mono;
		if (lag < LIVE_WINDOW_NS)
			lag = LIVE_WINDOW_NS;
		o->horizon_ns = now > lag ? now - lag : 0;
	} else {
		for (size_t i = 0; i < t->n_warnings; i++)
			warning("%s", t->warnings[i]);
	}
	ls->seen = 0;
	FILE *out = fopencookie(ls, "w", io);
	if (!out)
		die("cannot write: %s", strerror(errno));
	struct replay r = { .v = &v, .out = out, .time = time_, .srcline = srcline };
	if (fields)
		parse_fields(&r, fields);
	time_field(&r);
	r.buf = xmalloc(OUT_CAP);
	put_header(&r);
	calls_walk(&v, 1, &ops, &r, 0);
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct trace_thread *th = &t->procs[i].threads[k];
			if (th->view_aux && final)
				flush_pending(&r, th, th->view_aux);
			free(th->view_aux);
			th->view_aux = NULL;
		}
	fwrite(r.buf, 1, r.len, r.out);
	fclose(out);
	fflush(stdout);
	free(r.buf);
	for (size_t i = 0; i < r.n_names; i++)
		free(r.names[i].s);
	free(r.names);
	if (ls->seen > ls->skip)
		ls->skip = ls->seen;
	*had_events = trace_has_function_events(t);
	if (final)
		view_report_problems(&v);
	view_detach(&v);
	return 0;
}

int replay_follow(struct view_opts *o, int time_, int srcline, const char *fields, int recorder, int *status,
		  uint64_t not_before)
{
	struct symbols_options so = {
		.debug_dirs = o->debug_dirs.v, .n_debug_dirs = o->debug_dirs.n,
		.prefix_map = o->prefix_map.v, .n_prefix_map = o->prefix_map.n,
		.no_demangle = o->no_demangle, .demangle = o->demangle,
	};
	struct symbols *syms = symbols_new(&so);
	struct line_skip ls = { 0, 0 };
	int had_events = 0, ret = 0;

	if (!syms)
		die("cannot initialise the symbolizer");
	use_color = o->color > 0 || (o->color == 0 && isatty(STDOUT_FILENO));   /* (never paged: it streams) */
	if (!o->dir)
		o->dir = "fntrace.data";
	if (recorder <= 0)
		signal(SIGINT, on_sigint);
	for (;;) {
		int final = 0, state;
		uint64_t t0 = mono_now();
		if (recorder > 0) {
			pid_t w = waitpid(recorder, status, WNOHANG);
			if (w == recorder || (w < 0 && errno == ECHILD))
				final = 1;
		}
		state = session_state(o->dir, not_before);
		if (recorder <= 0 && state == 1)
			final = 1;
		if (follow_stop)
			break;
		if (final && state < 0) {     /* the recorder failed before starting */
			ret = 1;
			break;
		}
		if ((state >= 0 && !access(o->dir, F_OK)) || final)
			follow_pass(o, syms, time_, srcline, fields, final, &ls, &had_events);
		if (final) {
			if (!had_events) {
				fprintf(stderr, "fntrace: no function events were recorded in '%s'\n", o->dir);
				ret = 1;
			}
			break;
		}
		/* poll at least every LIVE_POLL_NS; a pass that took long (a big
		 * trace) waits twice its time, so following never takes more
		 * than a third of a CPU */
		uint64_t spent = mono_now() - t0, wait = spent * 2 > LIVE_POLL_NS ? spent * 2 : LIVE_POLL_NS;
		struct timespec ts = { (time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull) };
		while (nanosleep(&ts, &ts) && errno == EINTR && !follow_stop)
			;
	}
	fflush(stdout);
	symbols_free(syms);
	return ret;
}

/* ---- --format json: one object per call, as it ends ---- */

static void json_str(struct replay *r, const char *s, size_t n)
{
	char *p = room(r, 6 * n + 2);
	*p++ = '"';
	p = json_escape(p, s, n);
	*p++ = '"';
	r->len = (size_t)(p - r->buf);
}

static void json_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct replay *r = ctx;
	char buf[2048];
	size_t n;
	const char *spec = th->proc->n_argspecs ? trace_argspec(th->proc, f->addr) : NULL;
	const char *name = view_name_len(r->v, f->func, &n);
	int open = r->cut && end_ns > r->cut_end;   /* -r START~END: still open at END, as the text leaves it */
	if (n > OUT_CAP / 8)
		n = OUT_CAP / 8;
	snprintf(buf, sizeof(buf), "{\"pid\":%u,\"tid\":%u,\"depth\":%d,\"start_ns\":%" PRIu64
		 ",\"end_ns\":%" PRIu64 ",\"end\":\"%s\",\"name\":", th->proc->hdr.pid, th->tid, f->depth,
		 f->start_ns, open ? r->cut_end : end_ns,
		 open ? "open" : how == CALL_RETURN ? "return" : call_end_text(th, how));
	put_str(r, buf);
	json_str(r, name, n);
	if (spec) {
		args_where(th->proc, f->start_ns);
		n = args_format(spec, th->proc->hdr.version, f->args, f->args_len, 0, buf, sizeof(buf));
		put_str(r, ",\"args\":");
		json_str(r, buf, n);
		if (how == CALL_RETURN && !open && (n = args_format(spec, th->proc->hdr.version, f->ret, f->ret_len, 1, buf, sizeof(buf)))) {
			put_str(r, ",\"retval\":");
			json_str(r, buf, n);
		}
	}
	put_str(r, "}\n");
}

/* one end of -r START~END: a time since the start of the recording with
 * its unit (10ms), or a wall-clock time as --fields time prints it
 * (13:04:05.123456789) on the recording's first day, or the next one when
 * earlier than its start */
static uint64_t range_end(const struct trace *t, const char *arg, const char *full)
{
	unsigned h, m, sec;
	char frac[16] = "";
	int n = 0;
	if (sscanf(arg, "%2u:%2u:%2u%n", &h, &m, &sec, &n) == 3 && h < 24 && m < 60 && sec < 61) {
		const char *p = arg + n;
		uint64_t ns = 0, scale = 100000000;
		if (*p == '.') {
			for (p++; *p >= '0' && *p <= '9' && scale; p++, scale /= 10)
				ns += (uint64_t)(*p - '0') * scale;
			while (*p >= '0' && *p <= '9')
				p++;
		}
		if (!*p) {
			time_t t0 = (time_t)(t->t0_real / 1000000000ull);
			struct tm tm;
			localtime_r(&t0, &tm);
			tm.tm_hour = (int)h;
			tm.tm_min = (int)m;
			tm.tm_sec = (int)sec;
			uint64_t real = (uint64_t)mktime(&tm) * 1000000000ull + ns;
			if (real < t->t0_real)
				real += 86400ull * 1000000000ull;
			return real - t->t0_real;
		}
	}
	(void)frac;
	return parse_time_unit("-r/--time-range", arg, full);
}

/* -r START~END: the window the replay is cut to (either side may be empty) */
static void time_range(struct replay *r, struct view_opts *o, const struct trace *t, const char *arg)
{
	const char *tilde = strchr(arg, '~');
	static const char what[] = "START~END, each a time since the start of the recording (10ms~25ms) or a "
				   "wall-clock time as --fields time prints it";
	if (!tilde)
		die_usage("option '-r/--time-range' takes %s, not '%s'", what, arg);
	char start[64] = "", end[64] = "";
	if ((size_t)(tilde - arg) >= sizeof(start) || strlen(tilde + 1) >= sizeof(end))
		die_usage("option '-r/--time-range' takes %s, not '%s'", what, arg);
	memcpy(start, arg, (size_t)(tilde - arg));
	strcpy(end, tilde + 1);
	if (start[0])
		o->since_ns = range_end(t, start, what);
	if (end[0]) {
		o->until_ns = range_end(t, end, what);
		o->has_until = 1;
		r->cut = 1;
		r->cut_end = o->until_ns;
	}
	if (o->has_until && o->until_ns < o->since_ns)
		die_usage("option '-r/--time-range': END is before START in '%s'", arg);
}

/* -f/--format VALUE that is neither text nor json: what a uftrace user
 * meant by it, else the plain error */
static void bad_format(const char *arg)
{
	static const char *const exports[] = { "html", "svg", "folded", "chrome", "perfetto", "speedscope", "flame-graph" };
	static const char *const uftrace_fields[] = {
		"duration", "tid", "addr", "time", "delta", "elapsed", "task", "module", "self", "srcline", "none",
	};
	for (size_t i = 0; i < sizeof(exports) / sizeof(*exports); i++)
		if (!strcmp(arg, exports[i]))
			die_usage("option '--format' takes 'text' or 'json', not '%s': for %s use 'fntrace export -f %s'",
				  arg, arg, strcmp(arg, "flame-graph") ? arg : "folded");
	int fields = 1;
	for (const char *p = arg; *p && fields; ) {
		size_t n = strcspn(p, ","), k;
		for (k = 0; k < sizeof(uftrace_fields) / sizeof(*uftrace_fields); k++)
			if (strlen(uftrace_fields[k]) == n && !strncmp(p, uftrace_fields[k], n))
				break;
		fields = n && k < sizeof(uftrace_fields) / sizeof(*uftrace_fields);
		p += n + (p[n] == ',');
	}
	if (fields)
		die_usage("option '-f' is '--format' (text or json), not uftrace's -f/--output-fields: for the "
			  "columns write '--fields %s'", arg);
	die_usage("option '--format' takes 'text' or 'json', not '%s'", arg);
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		VIEW_LONGOPTS, FILTER_LONGOPTS,
		{ "time", no_argument, NULL, 0x300 },
		{ "srcline", no_argument, NULL, 0x301 },
		{ "follow", no_argument, NULL, 0x303 },
		{ "fields", required_argument, NULL, 0x310 },
		{ "time-range", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct calls_ops ops = { on_begin, on_end, on_orphan, on_lost, on_mark, on_stack, NULL, NULL };
	struct view_opts o = { 0 };
	struct view v;
	static const struct calls_ops json_ops = { NULL, json_end, NULL, NULL, NULL, NULL, NULL, NULL };
	struct replay r = { .v = &v, .out = stdout };
	int opt, json = 0;
	const char *fields_arg = NULL;   /* --fields, for --follow */
	const char *range = NULL;

	opterr = 0;
	int follow = 0;
	while ((opt = fnt_getopt_long(argc, argv, ":d:F:N:H:C:D:t:T:f:r:h", longopts, NULL)) != -1) {
		if (view_opt(&o, opt, optarg))
			continue;
		switch (opt) {
		case 'r': range = optarg; break;
		case 0x303: follow = 1; break;
		case 0x300: r.time = 1; break;
		case 0x301: r.srcline = 1; break;
		case 0x310: parse_fields(&r, optarg); fields_arg = optarg; break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				bad_format(optarg);
			json = !strcmp(optarg, "json");
			break;
		case 'h': fputs(replay_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (follow) {
		if (json)
			die_usage("--format json cannot be used with --follow (use it on the finished trace)");
		if (o.since_ns || o.has_until || range)
			die_usage("--since/--until and -r cannot be used with --follow");
		for (size_t i = 0; i < o.n_triggers; i++)
			if (o.triggers[i].flags & TRIG_TIME)
				die_usage("option '-T/--trigger': action 'time=' needs whole calls and cannot be used with "
					  "--follow (use it on the finished trace)");
		return replay_follow(&o, r.time, r.srcline, fields_arg, 0, NULL, 0);
	}
	time_field(&r);
	if (range && (o.since_ns || o.has_until))
		die_usage("-r/--time-range cuts the calls at both ends; --since/--until keep whole calls: use one or the other");
	view_open(&v, &o);
	if (range)
		time_range(&r, &o, v.trace, range);
	int out_tty = isatty(STDOUT_FILENO);   /* the replay goes to the terminal (or its pager) */
	pager_start(&o);
	progress_begin(v.trace, "replaying", out_tty);
	r.buf = xmalloc(OUT_CAP);
	if (json)
		calls_walk(&v, 1, &json_ops, &r, 0);
	else {
		put_header(&r);
		calls_walk(&v, 1, &ops, &r, 0);
	}
	progress_end();
	for (size_t i = 0; i < v.trace->n_procs; i++)
		for (size_t k = 0; k < v.trace->procs[i].n_threads; k++) {
			struct trace_thread *th = &v.trace->procs[i].threads[k];
			if (th->view_aux)
				flush_pending(&r, th, th->view_aux);
			free(th->view_aux);
			th->view_aux = NULL;
		}
	fwrite(r.buf, 1, r.len, r.out);
	free(r.buf);
	for (size_t i = 0; i < r.n_names; i++)
		free(r.names[i].s);
	free(r.names);
	fflush(stdout);
	int ret = 0;
	if (!trace_has_function_events(v.trace)) {
		view_no_events_hint(&v);
		ret = 1;
	} else if (r.src_asked && !r.src_found) {
		warning("--srcline: none of the functions shown has a source line: build the program with -g "
			"(or name the directory of its debug files with --debug-dir)");
	}
	view_report_problems(&v);
	view_close(&v);
	return ret;
}
