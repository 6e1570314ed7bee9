/*
 * cmd-record.c - `fntrace record`: run a program with the runtime preloaded
 * and wait for it.  The runtime does the recording; this side only prepares
 * the trace directory, sets the FNTRACE_* variables, reports how the
 * program ended and passes its status on.
 */
#include <capstone/capstone.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fntrace.h"
#include "format/argspec.h"
#include "tool/tool.h"
#include "tool/tracedir.h"
#include "tool/record-drain.h"
#include "format/drain.h"
#include "format/pathcheck.h"

#define CAPSTONE_SOVERSION2(x) #x
#define CAPSTONE_SOVERSION1(x) CAPSTONE_SOVERSION2(x)
#define CAPSTONE_SOVERSION CAPSTONE_SOVERSION1(CS_API_MAJOR)

static const char record_usage[] =
	"usage: fntrace record [options] [--] program [args...]\n\n"
	"Run a program built with -finstrument-functions (or -pg -mfentry) and record\n"
	"every function entry and exit of every thread and child process into a trace\n"
	"directory.\n\n"
	"  -d, --output DIR     trace directory, made 0700 (default: fntrace.data; an\n"
	"                       existing trace there is moved to DIR.old)\n"
	"      --callsite       also record where each call was made from\n"
	"                       (shown by 'fntrace replay --srcline')\n"
	"      --report         print 'fntrace report' when the program exits\n"
	"      --chunk-size N   per-thread buffer chunk (16K..64M, default 256K)\n"
	"      --clock CLOCK    tsc (default where the kernel trusts it) or monotonic\n"
	"  -A, --argument FUNC@ITEMS  record arguments of the functions FUNC names (a\n"
	"                       glob); ITEMS: argN[/fmt] and fpargN[/f32|/f64], comma-\n"
	"                       separated; fmt: i8..i64 (default i32), u8..u64, x, p, s,\n"
	"                       c, b, S (struct, not captured), t (std::string), v\n"
	"                       (std::string_view), f80 (long double).  -pg -mfentry and\n"
	"                       -fpatchable-function-entry builds, and library calls\n"
	"  -R, --retval FUNC@retval[/fmt]  record the return value of FUNC\n"
	"      --auto-args      record the arguments and return value of every function\n"
	"                       of the program, as its DWARF (-g) describes them,\n"
	"                       and of the common libc functions it calls\n"
	"  -P, --patch FUNC     trace the functions FUNC names (a glob, repeatable;\n"
	"                       '*': all) of a program, and of its own libraries,\n"
	"                       built without instrumentation: their first\n"
	"                       instructions are moved aside at start and at dlopen\n"
	"                       ('fntrace info' lists what was refused and why);\n"
	"                       -fpatchable-function-entry builds: only those pads\n"
	"      --patch-signal SIG  -P and -fpatchable-function-entry builds: start with\n"
	"                       no function patched; each SIG (name or number, e.g.\n"
	"                       USR1) the program receives switches patching on, then off\n"
	"      --no-libcall     do not trace library calls (the calls the program's\n"
	"                       instrumented code makes through its PLT/GOT into\n"
	"                       other shared objects: qsort, malloc...; on by default)\n"
	"      --libcall        trace them even when FNTRACE_LIBCALL=0 is set\n"
	"      --nest-libcall   also trace the calls libraries make to each other\n"
	"      --ring SIZE      flight recorder: keep only the last SIZE of events of\n"
	"                       each thread (e.g. 1M; at least 32K)\n"
	"      --snapshot-signal SIG  on signal SIG (e.g. SIGUSR2) copy the trace as it\n"
	"                       is into DIR/snapshot-signal-N/ (not SEGV, BUS, ILL,\n"
	"                       FPE, KILL or STOP)\n"
	"      --mode MODE      permissions of the trace files, in octal (default 0600:\n"
	"                       yours only); directories get x wherever MODE gives r\n"
	"                       (0640: files 0640, directories 0750)\n"
	"\nRecord-time filters (less data, less overhead; 'fntrace info' lists them):\n"
	"  -F, --filter FUNC    record only the calls under FUNC (glob, repeatable)\n"
	"  -N, --notrace FUNC   never record FUNC nor what it calls (glob, repeatable)\n"
	"  -H, --hide FUNC      do not record FUNC's own calls; what it calls is recorded\n"
	"                       one level up (glob, repeatable)\n"
	"  -C, --caller-filter FUNC  record only FUNC's calls and the calls that lead to\n"
	"                       them (not what FUNC calls; glob, repeatable)\n"
	"  -D, --depth N        record at most N levels (under -F: below each FUNC)\n"
	"      --max-stack N    record no call deeper than N levels from the thread's\n"
	"                       first frame, whatever -F says (uftrace's --max-stack)\n"
	"  -T, --trigger FUNC@ACTION[,ACTION...]  when FUNC is called (glob, repeatable):\n"
	"                       trace_on, trace_off (start, stop recording), depth=N\n"
	"                       (N levels from FUNC), backtrace (record its call stack),\n"
	"                       finish (stop recording for good when FUNC returns),\n"
	"                       time=DUR (keep FUNC's calls that took DUR or more, with\n"
	"                       their subtrees; a shorter one is kept if its subtree\n"
	"                       outgrew the thread's buffer chunk: replay -T with the\n"
	"                       same time= leaves it out), hide, filter, notrace (-H,\n"
	"                       -F, -N for FUNC), snapshot (a flight-recorder copy in\n"
	"                       DIR/snapshot-trigger-N/).  uftrace's time= hides the\n"
	"                       calls under FUNC shorter than DUR instead (-F FUNC -t\n"
	"                       DUR here); depth=N on a recursive FUNC counts from its\n"
	"                       outermost call (uftrace restarts at each nested call)\n"
	"  -t, --time-filter TIME  keep only calls that took at least TIME (5us, 1ms);\n"
	"                       shorter ones leave no trace, their time stays in\n"
	"                       their caller's\n"
	"      --module GLOB    trace only functions of matching ELF objects (path or\n"
	"                       file name, like 'libfoo*.so*'; repeatable)\n"
	"      --no-thread GLOB skip threads whose name matches (checked at each\n"
	"                       thread's first call and after each rename)\n"
	"  -q, --quiet          no summary line (where the trace went, events, size,\n"
	"                       losses) on stderr when the program ends\n"
	"      --trace=off      start with recording off: fnt_enable() in the program,\n"
	"                       a --signal or a -T FUNC@trace_on turns it on\n"
	"      --signal SIG@ACTION  on signal SIG (USR1, 10...): trace_on, trace_off,\n"
	"                       finish (the same as trace_off) or snapshot (repeatable;\n"
	"                       the program must not handle SIG itself)\n"
	"      --no-drain       let the program map its trace file itself, instead of\n"
	"                       writing into a ring of buffers that record copies out\n"
	"                       (about 2 ns more per call; see doc/perf-floor.md); the\n"
	"                       default under a file size limit (ulimit -f)\n"
	"      --no-symtab      do not save the symbol tables of the traced modules into\n"
	"                       DIR/symtab when the program ends (names then come only\n"
	"                       from the module files, which a rebuild changes; with\n"
	"                       -q the tables hold names only, no source lines)\n"
	"  -h, --help           this help\n\n"
	"The exit status is the program's; a program that died of signal N makes\n"
	"record die of signal N too, once the trace is written (without a core dump\n"
	"of its own), so a shell sees what it would have seen without record.  127\n"
	"if the program was not found, 126 if it could not be executed.  Events\n"
	"recorded before a crash or a kill are kept.  While the program runs,\n"
	"Ctrl-C and SIGQUIT are left to it, and SIGTERM and SIGHUP sent to record\n"
	"alone are passed on to it (not those sent to its whole process group,\n"
	"which it got already); once it has ended, they stop record.\n";

static char *find_runtime(void)
{
	char self[PATH_MAX], path[PATH_MAX + 64];
	const char *env = getenv("FNTRACE_LIBRARY");
	ssize_t n;
	static const char *const rel[] = { "libfntrace.so", "../lib/libfntrace.so.0", "../lib/fntrace/libfntrace.so", "../lib/libfntrace.so" };

	if (env && *env) {
		if (access(env, R_OK))
			die("FNTRACE_LIBRARY='%s': %s", env, strerror(errno));
		return realpath(env, NULL);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		die("cannot find the fntrace runtime: /proc/self/exe: %s", strerror(errno));
	self[n] = 0;
	*strrchr(self, '/') = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", self, rel[i]);
		if (!access(path, R_OK))
			return realpath(path, NULL);
	}
	die("cannot find the runtime library libfntrace.so next to '%s' or in ../lib "
	    "(set FNTRACE_LIBRARY to its path)", self);
}

/* a program name as execvp would find it; NULL with errno set */
static char *find_program(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, F_OK) ? NULL : xstrdup(prog);
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *dup = xstrdup(path), *save = NULL, buf[PATH_MAX];
	for (char *dir = strtok_r(dup, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", *dir ? dir : ".", prog);
		if (!access(buf, X_OK)) {
			free(dup);
			return xstrdup(buf);
		}
	}
	free(dup);
	errno = ENOENT;
	return NULL;
}

/* 1 if the file is a static ELF executable (LD_PRELOAD cannot reach it) */
static int is_static_elf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), stat_ = 0;
	Elf *e;
	size_t n;
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && !elf_getphdrnum(e, &n)) {
		int interp = 0, dynamic = 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph))
				continue;
			interp |= ph.p_type == PT_INTERP;
			dynamic |= ph.p_type == PT_DYNAMIC;
		}
		stat_ = !interp && !dynamic;
	}
	elf_end(e);
	close(fd);
	return stat_;
}

/* a command line, each word shell-quoted when needed (so 'a b' stays one) */
static void put_words(FILE *f, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		int plain = *argv[i] != 0;
		for (const char *c = argv[i]; *c; c++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%", *c))
				plain = 0;
		fputs(i ? " " : "", f);
		if (plain) {
			fputs(argv[i], f);
			continue;
		}
		fputc('\'', f);
		for (const char *c = argv[i]; *c; c++) {
			if (*c == '\'')
				fputs("'\\''", f);
			else
				fputc(*c == '\n' ? ' ' : *c, f);
		}
		fputc('\'', f);
	}
}

/* opts: record's own options (before the program), for info */
static void write_session(struct trace_dir *td, const char *dir, int n_opts, char **opts, int argc, char **argv,
			  uint64_t start, int has_status, int status, int pid)
{
	int fd = trace_dir_create(td, ".session.tmp");
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		warning("cannot write '%s/.session.tmp': %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	fprintf(f, "fntrace-session 1\ncommand=");
	put_words(f, argc, argv);
	fputs("\nrecord_options=", f);
	put_words(f, n_opts, opts);
	fprintf(f, "\nstart_realtime_ns=%" PRIu64 "\n", start);
	/* CLOCK_BOOTTIME beside CLOCK_MONOTONIC, the pair read together (the
	 * closest of a few tries): the perfetto export puts the trace on the
	 * boot clock of kernel traces with it */
	uint64_t mono = 0, boot = 0, best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		struct timespec a, b, c;
		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_BOOTTIME, &b);
		clock_gettime(CLOCK_MONOTONIC, &c);
		uint64_t na = (uint64_t)a.tv_sec * 1000000000ull + (uint64_t)a.tv_nsec;
		uint64_t nc = (uint64_t)c.tv_sec * 1000000000ull + (uint64_t)c.tv_nsec;
		if (nc - na < best) {
			best = nc - na;
			mono = na + (nc - na) / 2;
			boot = (uint64_t)b.tv_sec * 1000000000ull + (uint64_t)b.tv_nsec;
		}
	}
	fprintf(f, "clock_monotonic_ns=%" PRIu64 "\nclock_boottime_ns=%" PRIu64 "\n", mono, boot);
	if (pid > 0)
		fprintf(f, "pid=%d\n", pid);
	if (has_status)
		fprintf(f, "wait_status=%d\n", status);
	if (fclose(f) || renameat(td->fd, ".session.tmp", td->fd, "session"))
		warning("cannot write '%s/session': %s", dir, strerror(errno));
}

/* FNTRACE_FILTERS: "KEY VALUE" lines (include/fntrace.h) */
struct filter_text {
	char *text;
	size_t len;
};

static void filter_add(struct filter_text *f, char key, const char *val, const char *opt)
{
	size_t l = strlen(val);
	if (!l || strchr(val, '\n'))
		die_usage("option '%s' needs a non-empty value without newlines", opt);
	if (key == 'D' || key == 't' || key == 'S') {      /* the last one given counts: replace */
		for (char *p = f->text; p && *p;) {
			char *nl = strchr(p, '\n');
			if (p[0] == key && p[1] == ' ') {
				memmove(p, nl + 1, strlen(nl + 1) + 1);
				f->len -= (size_t)(nl + 1 - p);
				continue;
			}
			p = nl + 1;
		}
	}
	f->text = xrealloc(f->text, f->len + l + 4);
	sprintf(f->text + f->len, "%c %s\n", key, val);
	f->len += l + 3;
}

/* the record-time filters that select calls, as options ("-F 'nosuch'"),
 * or NULL: with them, recording nothing is no sign of a build without
 * hooks (one static buffer) */
static const char *record_filtered(const char *text, int trace_off)
{
	static char out[512];
	size_t n = 0;
	out[0] = 0;
	if (trace_off)          /* recording starts off: fnt_enable() or a trace_on trigger turns it on */
		n = (size_t)snprintf(out, sizeof(out), "--trace=off");
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		const char *opt = p[0] == 'F' ? "-F" : p[0] == 'N' ? "-N" : p[0] == 'C' ? "-C" : p[0] == 't' ? "-t" :
				  p[0] == 'm' ? "--module" : p[0] == 'T' ? "--no-thread" :
				  p[0] == 'g' && ((strstr(p, "trace_on") && (!nl || strstr(p, "trace_on") < nl)) ||
						  (strstr(p, "time=") && (!nl || strstr(p, "time=") < nl))) ? "-T" :
				  NULL;
		if (opt && l > 2 && n + l + 16 < sizeof(out))
			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s '%.*s%s'", n ? ", " : "", opt, (int)(l - 2),
					      p + 2, p[0] == 't' ? "ns" : "");
		p = nl ? nl + 1 : p + l;
	}
	return n ? out : NULL;
}

/* -D N, --max-stack N: a depth of at least 1 */
static void filter_depth(struct filter_text *f, char key, const char *opt, const char *arg)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%d", parse_depth(opt, arg));
	filter_add(f, key, buf, opt);
}

/* Check one -A/-R value; append "FUNC@ITEMS" to the FNTRACE_ARGS text. */
/* --patch-signal: a signal number or name (USR1, SIGUSR1, RTMIN+2 is not taken) */
static int parse_patch_signal(const char *arg)
{
	const char *name = strncasecmp(arg, "SIG", 3) ? arg : arg + 3;
	int sig = 0;
	if (*arg >= '0' && *arg <= '9') {
		char *end;
		long v = strtol(arg, &end, 10);
		sig = *end || v <= 0 || v >= NSIG ? 0 : (int)v;
	} else {
		for (int i = 1; i < NSIG; i++) {
			const char *abbrev = sigabbrev_np(i);
			if (abbrev && !strcasecmp(abbrev, name)) {
				sig = i;
				break;
			}
		}
	}
	if (!sig)
		die_usage("option '--patch-signal' takes a signal name or number (e.g. USR1), not '%s'", arg);
	if (sig == SIGKILL || sig == SIGSTOP || sig == SIGTRAP)
		die_usage("option '--patch-signal' cannot use %s (SIGKILL and SIGSTOP cannot be caught, "
			  "SIGTRAP is used to patch safely); pick e.g. USR1", arg);
	return sig;
}

/* --snapshot-signal: a fault signal comes straight back from the faulting
 * instruction once the handler returns (a snapshot each time, forever), and
 * SIGKILL/SIGSTOP cannot be caught */
static int parse_snapshot_signal(const char *arg)
{
	static const int refused[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGKILL, SIGSTOP };
	const char *name = strncasecmp(arg, "SIG", 3) ? arg : arg + 3;
	char *end;
	long v = strtol(arg, &end, 10);
	int sig;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if ((*arg && !*end && v == refused[i]) || !strcasecmp(name, sigabbrev_np(refused[i])))
			die_usage("option '--snapshot-signal' cannot use %s (SEGV, BUS, ILL and FPE come back at once "
				  "from a fault, KILL and STOP cannot be caught); pick e.g. SIGUSR2", arg);
	sig = parse_signal(arg);
	if (sig <= 0)
		die_usage("option '--snapshot-signal': unknown signal '%s' (e.g. SIGUSR2 or 12)", arg);
	return sig;
}

static void add_argspec(char **env, const char *opt, const char *val, int is_ret)
{
	const char *at = strrchr(val, '@');
	struct fnt_argspec spec = { 0 };
	int bad;
	if (!at || at == val || !at[1])
		die_usage("option '%s': '%s' is not FUNC@%s", opt, val, is_ret ? "retval[/fmt]" : "arg1,arg2/fmt,...");
	if (strchr(val, ';'))
		die_usage("option '%s': '%s' contains ';'", opt, val);
	bad = fnt_argspec_parse(at + 1, strlen(at + 1), &spec);
	if (bad && spec.n == FNT_ARGS_MAX)
		die_usage("option '%s': '%s' has more than %d items, the most one function can have (its -A and -R "
			  "specs together)", opt, val, FNT_ARGS_MAX);
	if (bad)
		die_usage("option '%s': item %d of '%s' is not valid (argN[/fmt], fpargN[/f32|/f64], retval[/fmt]; "
			  "fmt: i8..i64, u8..u64, x, p, s, c, b, S, t, v, f80; see doc/args.md)", opt, bad, at + 1);
	for (unsigned i = 0; i < spec.n; i++)
		if ((spec.item[i].src == FNT_SRC_RET) != is_ret)
			die_usage("option '%s': '%s': %s", opt, val,
				  is_ret ? "-R/--retval takes retval[/fmt] only" : "retval goes with -R/--retval");
	size_t old = *env ? strlen(*env) : 0;
	*env = xrealloc(*env, old + strlen(val) + 2);
	if (old)
		(*env)[old++] = ';';
	strcpy(*env + old, val);
}

/* an option's values as record passes them on ("a@arg1;b@retval"), for a
 * message that quotes each: "a@arg1', 'b@retval" (malloc'ed) */
static char *quoted_list(const char *values)
{
	char *list = xmalloc(3 * strlen(values) + 1), *q = list;
	for (const char *p = values; *p; p++)
		q = *p == ';' ? stpcpy(q, "', '") : (*q = *p, q + 1);
	*q = 0;
	return list;
}

/* -A/-R or -P given, and what they name matched nothing in any process
 * of the trace: say so, as the views do for -F globs that match nothing,
 * or the trace is silently without them.  -A/-R: no ARGSPEC record in any
 * file, every glob named nothing that was loaded (globs that matched
 * while others did not are not told apart: that needs every function's
 * name).  -P: no function patched or skipped, every glob named nothing in
 * the program or its own libraries (a comma list is one glob, which
 * matches no name).  And patchable entries too short for the call, which
 * leave their functions untraced: warned when some events were recorded
 * (else the caller says it); returns how many.  One opening of the trace
 * for all. */
static uint64_t specs_matched(const char *dir, const char *specs, const char *globs, int recorded)
{
	struct trace *t;
	struct patch_totals pt;
	char err[4400];
	size_t n = 0;
	if (trace_open(&t, dir, err, sizeof(err)))
		return 0;
	for (size_t i = 0; i < t->n_procs; i++)
		n += t->procs[i].n_argspecs;
	patch_totals(t, &pt);
	trace_close(t);
	if (specs && !n) {
		char *list = quoted_list(specs);
		warning("-A/-R: no values were recorded: '%s' matched no function that can show them (one built "
			"with -pg -mfentry or patchable entries, or a library call), as 'fntrace report' names "
			"functions", list);
		free(list);
	}
	if (globs && !pt.patched && !pt.skipped && !pt.no_disasm && !pt.pads && !pt.short_pads) {
		char *list = quoted_list(globs);
		warning("-P: '%s' matched no function of the program or of its own libraries (one name or glob "
			"per -P; 'nm' lists the names; libraries under /lib and /usr/lib are not patched)", list);
		free(list);
	}
	if (pt.short_pads && recorded)
		warning("%" PRIu64 " function%s not traced: %s ('fntrace info' lists the modules)", pt.short_pads,
			pt.short_pads == 1 ? " was" : "s were", patch_reason(FNT_PATCH_SHORT_PAD));
	return pt.short_pads;
}

/* Libraries that -P never patches (runtime/prologue.c says the same) */
static int system_library(const char *path)
{
	static const char *const dirs[] = { "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/lib32/", "/usr/lib32/" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return 1;
	return 0;
}

/* How a program was instrumented, from the symbols it imports or defines:
 * bit 0 -finstrument-functions, bit 1 __fentry__, bit 2 mcount, bit 3 a
 * __patchable_function_entries section; bit 5 (FUNC_SYMBOLS), some
 * function it defines has a symbol (-P finds functions by name: a
 * stripped executable has none); bit 6 (CYG_IMPORTED), it imports
 * __cyg_profile_func_enter rather than defines it; bit 7 (OWN_RUNTIME), it
 * was linked with libfntrace.a. */
int instrumentation_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), kinds = 0;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx)) {
		elf_end(e);
		close(fd);
		return 0;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (sname && !strcmp(sname, "__patchable_function_entries"))
			kinds |= 8;
		if (sname && !strcmp(sname, ".note.fntrace") && sh.sh_type == SHT_NOTE)
			kinds |= OWN_RUNTIME;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		if (!(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			if (!gelf_getsym(d, (int)i, &sym) || !(n = elf_strptr(e, sh.sh_link, sym.st_name)))
				continue;
			if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF && sym.st_value)
				kinds |= FUNC_SYMBOLS;
			if (!strcmp(n, "__cyg_profile_func_enter"))
				kinds |= sym.st_shndx == SHN_UNDEF ? 1 | CYG_IMPORTED : 1;
			else if (!strcmp(n, "__fentry__") && sym.st_shndx == SHN_UNDEF)
				kinds |= 2;     /* a call of it (libc, which defines it, is not built with it) */
			else if (!strcmp(n, "mcount") || !strcmp(n, "_mcount"))
				kinds |= 4;
		}
	}
	elf_end(e);
	close(fd);
	return kinds;
}

/* --signal SIG@ACTION: "SIG:on|off|snapshot;" appended to *env */
static void add_signal_action(char **env, const char *arg)
{
	const char *at = strchr(arg, '@');
	static const struct { const char *name, *code; } acts[] = {
		{ "trace_on", "on" }, { "trace_off", "off" }, { "finish", "off" }, { "snapshot", "snapshot" },
	};
	const char *code = NULL;
	char sig_name[32];
	if (!at || at == arg || (size_t)(at - arg) >= sizeof(sig_name))
		die_usage("option '--signal' takes SIG@ACTION (like USR1@trace_on), not '%s'", arg);
	memcpy(sig_name, arg, (size_t)(at - arg));
	sig_name[at - arg] = 0;
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!strcmp(at + 1, acts[i].name))
			code = acts[i].code;
	if (!code)
		die_usage("option '--signal': unknown action '%s' (trace_on, trace_off, finish or snapshot)", at + 1);
	static const int refused[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGKILL, SIGSTOP };
	const char *bare = strncasecmp(sig_name, "SIG", 3) ? sig_name : sig_name + 3;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!strcasecmp(bare, sigabbrev_np(refused[i])) || atoi(sig_name) == refused[i])
			die_usage("option '--signal' cannot use %s (SEGV, BUS, ILL and FPE come back at once from a "
				  "fault, KILL and STOP cannot be caught); pick e.g. SIGUSR1", sig_name);
	int sig = parse_signal(sig_name);
	if (sig <= 0)
		die_usage("option '--signal': unknown signal '%s' (e.g. USR1 or 10)", sig_name);
	char item[64];
	snprintf(item, sizeof(item), "%d:%s;", sig, code);
	size_t old = *env ? strlen(*env) : 0;
	*env = xrealloc(*env, old + strlen(item) + 1);
	strcpy(*env + old, item);
}

static pid_t child_pid;

/* ---- SIGTERM and SIGHUP: passed on to the program, once ----
 *
 * A signal sent to record alone (`kill PID`, a service manager stopping
 * its main process, a hangup of a terminal record leads) must reach the
 * program; one sent to the whole process group (`timeout`, `kill -- -PGID`,
 * a program's own kill(0, ...), a shell's SIGHUP to its jobs) has reached
 * it already, and passing it on again made a program whose handler treats
 * a second SIGTERM as "stop now" skip its graceful shutdown.  Nothing in
 * the siginfo tells the two apart (both are SI_USER from the same pid), so
 * record keeps a witness: a process of its own in the program's process
 * group that blocks every signal and reports each SIGTERM and SIGHUP it
 * gets.  A signal the witness got too was sent to the group: it is not
 * passed on. */
struct witness_msg {
	int32_t sig, pad;
	uint64_t ns;
};
static pid_t witness_pid = -1;
static int witness_fd = -1;
static uint64_t witness_seen[NSIG];     /* when the witness last got each signal */

/* before the program is started, from record's one thread (the witness
 * dies with it: PR_SET_PDEATHSIG) */
static void witness_start(void)
{
	int p[2];
	pid_t parent = getpid();
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t all, set;
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent)
			_exit(0);
		/* holds nothing of record's: no terminal, no trace, no lock */
		if (p[1] != 3 && dup3(p[1], 3, O_CLOEXEC) < 0)
			_exit(0);
		for (int fd = 0; fd < 3; fd++)
			close(fd);
		if (syscall(SYS_close_range, 4u, ~0u, 0u))
			for (int fd = 4; fd < 65536; fd++)
				close(fd);
		prctl(PR_SET_NAME, "fntrace-witness", 0, 0, 0);
		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGHUP);
		for (;;) {
			int sig = sigwaitinfo(&set, NULL);
			if (sig < 0)
				continue;
			struct witness_msg m = { sig, 0, mono_now() };
			if (write(3, &m, sizeof(m)) < 0 && errno == EPIPE)
				_exit(0);
		}
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return;
	}
	witness_pid = pid;
	witness_fd = p[0];
}

static void witness_stop(void)
{
	if (witness_pid > 0) {
		kill(witness_pid, SIGKILL);
		while (waitpid(witness_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (witness_fd >= 0)
		close(witness_fd);
	witness_pid = witness_fd = -1;
}

/* 1 if the witness got sig at most 1 s before `since`, waiting up to
 * 100 ms for its report (the kernel signals a group member by member) */
static int witness_got(int sig, uint64_t since)
{
	uint64_t end = since + 100000000ull;
	for (;;) {
		struct witness_msg m;
		while (read(witness_fd, &m, sizeof(m)) == (ssize_t)sizeof(m))
			if (m.sig > 0 && m.sig < NSIG)
				witness_seen[m.sig] = m.ns;
		if (witness_seen[sig] && witness_seen[sig] + 1000000000ull >= since)
			return 1;
		uint64_t now = mono_now();
		if (now >= end)
			return 0;
		struct pollfd pfd = { witness_fd, POLLIN, 0 };
		if (poll(&pfd, 1, (int)((end - now) / 1000000u) + 1) < 0 && errno != EINTR)
			return 0;
	}
}

static void forward_signal(int sig, siginfo_t *si, void *uc)
{
	int e = errno;
	uint64_t t = mono_now();
	(void)uc;
	/* the program signalling record itself: passing it back would hit
	 * the sender; one the witness got was sent to the whole group */
	/* (the witness tells only while it shares the program's process
	 * group: one that made a group of its own, a daemon, a job-control
	 * shell, got nothing a group signal to record's group sent) */
	/* One sender's two copies of a signal (timeout(1) signals its child,
	 * then its whole group: record twice) are one: the second, from the
	 * same pid within 100 ms, is not passed on again.  (Two copies that
	 * arrive together are merged by the kernel; on a loaded machine the
	 * second arrives while the first is handled.) */
	static int last_sig;
	static pid_t last_pid;
	static uint64_t last_ns;
	int again = si->si_code == SI_USER && sig == last_sig && si->si_pid == last_pid && t - last_ns < 100000000ull;
	if (child_pid > 0 && !again && !(si->si_code == SI_USER && si->si_pid == child_pid) &&
	    (witness_fd < 0 || getpgid(child_pid) != getpgid(witness_pid) || !witness_got(sig, t))) {
		kill(child_pid, sig);
		last_sig = sig;
		last_pid = si->si_code == SI_USER ? si->si_pid : 0;
		last_ns = t;
	}
	errno = e;
}

static int count_fnt(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		n += l > 4 && !strcmp(de->d_name + l - 4, ".fnt");
	}
	closedir(d);
	return n;
}

/* while the program runs without the drain: a flight recorder's snapshots
 * get their symbol tables, looked for twice a second */
static long watch_tick(void *ctx)
{
	symtab_watch_tick(ctx);
	return 500000000L;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'd' },
		{ "callsite", no_argument, NULL, 0x200 },
		{ "report", no_argument, NULL, 0x201 },
		{ "chunk-size", required_argument, NULL, 0x202 },
		{ "clock", required_argument, NULL, 0x203 },
		{ "filter", required_argument, NULL, 'F' },
		{ "notrace", required_argument, NULL, 'N' },
		{ "depth", required_argument, NULL, 'D' },
		{ "hide", required_argument, NULL, 'H' },
		{ "caller-filter", required_argument, NULL, 'C' },
		{ "trigger", required_argument, NULL, 'T' },
		{ "max-stack", required_argument, NULL, 0x213 },
		{ "time-filter", required_argument, NULL, 't' },
		{ "module", required_argument, NULL, 0x204 },
		{ "no-thread", required_argument, NULL, 0x205 },
		{ "tid", required_argument, NULL, 0x206 },
		{ "argument", required_argument, NULL, 'A' },
		{ "retval", required_argument, NULL, 'R' },
		{ "auto-args", no_argument, NULL, 0x207 },
		{ "patch", required_argument, NULL, 0x208 },
		{ "patch-signal", required_argument, NULL, 0x20b },
		{ "ring", required_argument, NULL, 0x209 },
		{ "snapshot-signal", required_argument, NULL, 0x20a },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-drain", no_argument, NULL, 0x280 },
		{ "no-symtab", no_argument, NULL, 0x281 },
		{ "trace", required_argument, NULL, 0x270 },
		{ "signal", required_argument, NULL, 0x271 },
		{ "mode", required_argument, NULL, 0x240 },
		{ "no-libcall", no_argument, NULL, 0x210 },
		{ "libcall", no_argument, NULL, 0x211 },
		{ "nest-libcall", no_argument, NULL, 0x212 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct filter_text ft = { 0 };
	const char *dir = "fntrace.data", *clock_name = NULL;
	int no_symtab = 0, callsite = 0, report = 0, auto_args = 0, quiet = 0, no_drain = 0, trace_off = 0, opt, pipefd[2], status = 0;
	char *signals_env = NULL;
	struct drain drain = { .fd = -1, .file_fd = -1 };
	uint64_t chunk = 0, start, ring = 0, ring_chunks = 0;
	int snap_sig = 0;
	char *lib, *prog, absdir[PATH_MAX], *args_env = NULL, *patch_env = NULL;
	int patching, stripped = 0;   /* -P given; -P on an executable with no function symbols */
	int patch_sig = 0;
	struct timespec ts;
	struct trace_dir td;
	const char *mode = NULL;
	char *preload_dir;
	/* library calls: on unless FNTRACE_LIBCALL=0 says otherwise (the test
	 * harness's default) or --no-libcall */
	const char *lc_env = getenv(FNTRACE_ENV_LIBCALL);
	int libcall = lc_env && !strcmp(lc_env, "0") ? 0 : lc_env && !strcmp(lc_env, "nest") ? 2 : 1;

	opterr = 0;
	while ((opt = fnt_getopt_long(argc, argv, "+:d:hqF:N:D:t:A:R:P:H:C:T:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dir = optarg; break;
		case 'F': glob_regex_hint("-F", optarg); filter_add(&ft, 'F', optarg, "-F/--filter"); break;
		case 'N': glob_regex_hint("-N", optarg); filter_add(&ft, 'N', optarg, "-N/--notrace"); break;
		case 'H': glob_regex_hint("-H", optarg); filter_add(&ft, 'H', optarg, "-H/--hide"); break;
		case 'C': glob_regex_hint("-C", optarg); filter_add(&ft, 'C', optarg, "-C/--caller-filter"); break;
		case 'T': {
			struct trigger g;
			trigger_parse(&g, optarg, 1);
			glob_regex_hint("-T", g.glob);
			char *text = trigger_record_text(&g);
			filter_add(&ft, 'g', text, "-T/--trigger");
			free(text);
			free(g.glob);
			break;
		}
		case 0x213: filter_depth(&ft, 'S', "--max-stack", optarg); break;
		case 'D': filter_depth(&ft, 'D', "-D/--depth", optarg); break;
		case 't': {
			char buf[32];
			uint64_t ns = parse_time_unit("-t/--time-filter", optarg, "a duration");
			if (!ns)
				die_usage("option '-t/--time-filter' takes a duration above zero, not '%s'", optarg);
			snprintf(buf, sizeof(buf), "%" PRIu64, ns);
			filter_add(&ft, 't', buf, "-t");
			break;
		}
		case 0x204: filter_add(&ft, 'm', optarg, "--module"); break;
		case 0x205: filter_add(&ft, 'T', optarg, "--no-thread"); break;
		case 0x206:
			die_usage("'--tid' is not a record option: thread ids are not known before the program "
				  "runs; use --no-thread NAME-GLOB to skip threads, or 'fntrace replay --tid' to "
				  "view some");
		case 'A': add_argspec(&args_env, "--argument", optarg, 0); break;
		case 'R': add_argspec(&args_env, "--retval", optarg, 1); break;
		case 0x207: auto_args = 1; break;
		case 'P':
		case 0x208: {
			size_t old = patch_env ? strlen(patch_env) : 0;
			if (!*optarg || strchr(optarg, ';'))
				die_usage("option '-P/--patch' takes a function name or glob, not '%s'", optarg);
			glob_regex_hint("-P", optarg);
			patch_env = xrealloc(patch_env, old + strlen(optarg) + 2);
			if (old)
				patch_env[old++] = ';';
			strcpy(patch_env + old, optarg);
			break;
		}
		case 0x20b: patch_sig = parse_patch_signal(optarg); break;
		case 0x210: libcall = 0; break;
		case 0x211: libcall = libcall ? libcall : 1; break;
		case 0x212: libcall = 2; break;
		case 0x200: callsite = 1; break;
		case 0x201: report = 1; break;
		case 0x202:
			chunk = parse_size("--chunk-size", optarg);
			if (chunk < FNT_MIN_CHUNK || chunk > FNT_MAX_CHUNK || chunk % 4096)
				die_usage("option '--chunk-size': %s is not a multiple of 4K from 16K to 64M", optarg);
			break;
		case 0x203:
			if (strcmp(optarg, "tsc") && strcmp(optarg, "monotonic"))
				die_usage("option '--clock' takes 'tsc' or 'monotonic', not '%s'", optarg);
			clock_name = optarg;
			break;
		case 0x209:
			ring = parse_size("--ring", optarg);
			if (ring < 2 * FNT_MIN_CHUNK)
				die_usage("option '--ring': %s is too small (at least 32K: two chunks of 16K)", optarg);
			break;
		case 0x20a:
			snap_sig = parse_snapshot_signal(optarg);
			break;
		case 'q': quiet = 1; break;
		case 0x280: no_drain = 1; break;
		case 0x281: no_symtab = 1; break;
		case 0x270:
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				die_usage("option '--trace' takes on or off, not '%s'", optarg);
			trace_off = !strcmp(optarg, "off");
			break;
		case 0x271: add_signal_action(&signals_env, optarg); break;
		case 0x240: mode = optarg; break;
		case 'h': fputs(record_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		die_usage("no program to record (fntrace record [options] -- program [args...])");
	if (patch_sig && patch_sig == snap_sig)
		die_usage("options '--patch-signal' and '--snapshot-signal' need two different signals");
	if (ring) {
		/* the ring is 2..32 chunks per thread: size the chunks to fit */
		if (chunk) {
			ring_chunks = ring / chunk;
			if (ring_chunks < 2 || ring_chunks > 32)
				die_usage("option '--ring': %" PRIu64 " bytes hold %" PRIu64 " chunks of --chunk-size; "
					  "it must hold 2 to 32", ring, ring_chunks);
		} else {
			chunk = FNT_DEFAULT_CHUNK;
			if (ring / chunk < 2)
				chunk = (ring / 2) & ~4095ull;
			if (ring / chunk > 32)
				chunk = ((ring + 31) / 32 + 4095) & ~4095ull;
			if (chunk > FNT_MAX_CHUNK)
				die_usage("option '--ring': too large (at most 2G)");
			ring_chunks = ring / chunk;
		}
	}

	/* record's own options, for info (without the "--" that ends them) */
	int n_opts = optind - 1 - (optind > 1 && !strcmp(argv[optind - 1], "--"));
	prog = find_program(argv[optind]);
	if (!prog) {
		int e = errno;
		if (!strchr(argv[optind], '/') && !access(argv[optind], X_OK))
			/* as the shell: a name without '/' is looked up in $PATH only */
			fprintf(stderr, "fntrace: cannot run '%s': not found in $PATH (the one in this directory "
				"is './%s')\n", argv[optind], argv[optind]);
		else
			fprintf(stderr, "fntrace: cannot run '%s': %s\n", argv[optind], strerror(e));
		return 127;
	}
	{
		struct stat st;
		const char *why = NULL;
		if (stat(prog, &st))
			why = strerror(errno);
		else if (S_ISDIR(st.st_mode))
			why = "Is a directory";
		else if (access(prog, X_OK))
			why = strerror(errno);
		if (why) {
			fprintf(stderr, "fntrace: cannot run '%s': %s\n", argv[optind], why);
			free(prog);
			return 126;
		}
	}
	/* linked with libfntrace.a: it records itself (the shared runtime,
	 * preloaded for the programs it execs, stands aside in it) */
	int prog_kinds = instrumentation_of(prog);
	int own_runtime = (prog_kinds & OWN_RUNTIME) != 0, prog_static = is_static_elf(prog);
	if (prog_static && !own_runtime)
		warning("'%s' is statically linked: the runtime cannot be preloaded into it; "
			"link it with -lfntrace instead (see the README)", prog);
	else if (own_runtime && !prog_static)
		warning("'%s' is linked with libfntrace.a: it records itself, and the shared runtime stands "
			"aside in it; its library calls are not traced, and -P and the -pg -mfentry modes "
			"do nothing (link a dynamically linked program with -lfntrace instead)", prog);
	{
		int kinds = prog_kinds;
		if ((kinds & 4) && !(kinds & 3))
			die("'%s' was built with -pg without -mfentry (mcount), which fntrace cannot trace; "
			    "rebuild it with -pg -mfentry (or -finstrument-functions)", prog);
		if (patch_env && !(kinds & 8) && (kinds & 3))
			warning("'%s' is built with %s, whose hooks trace every function already: -P/--patch "
				"selects functions of code built without instrumentation (or with "
				"-fpatchable-function-entry), so it changes nothing here", prog,
				(kinds & 1) ? "-finstrument-functions" : "-pg -mfentry");
		if (patch_env && !(kinds & 15) && !(kinds & FUNC_SYMBOLS))
			warning("-P/--patch: '%s' has no symbol table (it was stripped), so -P finds no function "
				"in it to patch: record a build that is not stripped (its library calls are traced "
				"all the same)", prog);
		stripped = patch_env && !(kinds & 15) && !(kinds & FUNC_SYMBOLS);
		if (patch_env && !(kinds & 15)) {
			/* -P moves prologues: the runtime decodes them with capstone */
			void *cs = dlopen("libcapstone.so." CAPSTONE_SOVERSION, RTLD_LAZY | RTLD_LOCAL);
			if (!cs)
				die("-P/--patch on '%s', built without instrumentation, needs the capstone "
				    "disassembler (libcapstone.so." CAPSTONE_SOVERSION "): apt-get install libcapstone4",
				    prog);
			dlclose(cs);
			kinds |= 16;    /* its functions can show arguments, as under -pg -mfentry */
		}
		/* a library the program links against may be the one built with
		 * -pg -mfentry (or patchable entries): the specs may be for it */
		if ((args_env || auto_args) && !(kinds & 26)) {
			char **libs;
			size_t n = needed_libs(prog, &libs);
			for (size_t i = 0; i < n; i++) {
				kinds |= instrumentation_of(libs[i]) & 10;
				free(libs[i]);
			}
			free(libs);
		}
		/* with library calls on, the specs may name library functions */
		char *own = NULL;
		if ((args_env || auto_args) && !(kinds & 26) &&
		    (!libcall || (args_env && (own = libcall_unserved_spec(prog, args_env)))))
			die_usage("'%s' %s, which cannot see arguments or return values; rebuild it with "
				  "-pg -mfentry or -fpatchable-function-entry=5 to use -A/-R%s%s%s", prog,
				  (kinds & 1) ? "is built with -finstrument-functions, whose hooks run after the "
						"arguments are gone" : "is not built with -pg -mfentry",
				  own ? " on '" : "/--auto-args", own ? own : "",
				  own ? "' (library functions work as they are)" : "");
	}
	trace_dir_modes(&td, mode);
	lib = find_runtime();
	struct stat lib_st;                     /* its table is not saved under -q */
	int have_lib_st = !stat(lib, &lib_st);
	trace_dir_prepare(&td, dir);
	if (!realpath(dir, absdir))
		die("cannot resolve '%s': %s", dir, strerror(errno));
	clock_gettime(CLOCK_REALTIME, &ts);
	start = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	write_session(&td, absdir, n_opts, argv + 1, argc - optind, argv + optind, start, 0, 0, 0);
	char argsfile[PATH_MAX + 16] = "";
	if (auto_args) {
		size_t n = 0;
		/* a -finstrument-functions build: only its library calls can show arguments */
		/* -pg -mfentry and patchable builds, and code built without
		 * instrumentation whose prologues -P moves */
		int k = instrumentation_of(prog);
		char *specs = ((k & 10) || (patch_env && !(k & 15))) ? autoargs_specs(prog, &n) : NULL;
		/* and those of the libraries it links against that can show them */
		char **libs;
		size_t n_libs = needed_libs(prog, &libs);
		for (size_t i = 0; i < n_libs; i++) {
			size_t k = 0;
			int lk = instrumentation_of(libs[i]);
			char *more = ((lk & 10) || (patch_env && !(lk & 15) && !system_library(libs[i]))) ?
				     autoargs_specs(libs[i], &k) : NULL;
			if (more && k) {
				size_t a = specs ? strlen(specs) : 0, b = strlen(more);
				specs = xrealloc(specs, a + b + 2);
				if (a && specs[a - 1] != ';')
					specs[a++] = ';';
				memcpy(specs + a, more, b + 1);
				n += k;
			}
			free(more);
			free(libs[i]);
		}
		free(libs);
		FILE *f;
		int fd;
		if ((!specs || !n) && !libcall)
			die("'%s' has no DWARF description of its functions for --auto-args (build it with -g)", prog);
		snprintf(argsfile, sizeof(argsfile), "%s/argspecs", absdir);
		fd = trace_dir_create(&td, "argspecs");
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f || (specs && n && (fputs(specs, f) < 0 || fputc(';', f) < 0)) ||
		    (libcall && (fputs(libc_auto_specs(), f) < 0 || fputc(';', f) < 0)) ||
		    (args_env && fputs(args_env, f) < 0) || fclose(f))
			die("cannot write '%s': %s", argsfile, strerror(errno));
		free(specs);
	}

	{
		char *link = trace_dir_preload_path(lib, &preload_dir);
		free(lib);
		lib = link;
	}
	if (pipe2(pipefd, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	/* the program's event chunks go to a ring that this process copies
	 * into the trace (record-drain.c); not for a flight recorder, which
	 * rewrites its chunks in the file, nor for snapshots by signal, which
	 * copy the file as it is.  Nor under a file size limit (ulimit -f): the
	 * program, which may raise or lower its own, must be the one that grows
	 * its file, checking its limit as it goes (doc/safety.md); the ring, a
	 * file too, would not fit under a small one either */
	witness_start();
	struct rlimit fsize;
	int fsize_limited = !getrlimit(RLIMIT_FSIZE, &fsize) && fsize.rlim_cur != RLIM_INFINITY;
	if (!no_drain && !ring_chunks && !snap_sig && !fsize_limited &&
	    drain_create(&drain, chunk ? (uint32_t)chunk : FNT_DEFAULT_CHUNK, FNT_DRAIN_SLOTS))
		drain.ctl = NULL;
	/* SIGTERM and SIGHUP are passed on, SIGINT and SIGQUIT left to the
	 * program, from the program's start: blocked until record's handlers
	 * are in (below).  They were put in once the program had started: a
	 * `kill $!` that came while the program's start-up ran before record
	 * had the CPU again (a loaded machine) ended record at once, and left
	 * the program running with its trace unfinished */
	sigset_t mask_before;
	tool_hold_signals(&mask_before);
	fflush(NULL);
	child_pid = fork();
	if (child_pid < 0)
		die("fork: %s", strerror(errno));
	if (child_pid == 0) {
		sigprocmask(SIG_SETMASK, &mask_before, NULL);   /* the program starts with record's own mask */
		const char *old = getenv("LD_PRELOAD");
		char *preload = xmalloc(strlen(lib) + (old ? strlen(old) : 0) + 2);
		int err;
		strcpy(preload, lib);
		if (old && *old) {
			strcat(preload, ":");
			strcat(preload, old);
		}
		setenv("LD_PRELOAD", preload, 1);
		setenv(FNTRACE_ENV_DIR, absdir, 1);
		{
			/* the directory itself: a process whose path names
			 * another one (a mount namespace) writes nothing there */
			struct stat dst;
			char id[PATH_MAX + 64];
			if (!fstat(td.fd, &dst)) {
				snprintf(id, sizeof(id), "%llu:%llu:%s", (unsigned long long)dst.st_dev,
					 (unsigned long long)dst.st_ino, absdir);
				setenv(FNTRACE_ENV_DIR_ID, id, 1);
				gid_t pg = fnt_user_private_gid(geteuid());
				if (pg != (gid_t)-1) {    /* (the runtime need not read /etc again) */
					snprintf(id, sizeof(id), "%lu", (unsigned long)pg);
					setenv(FNTRACE_ENV_USER_GROUP, id, 1);
				} else {
					unsetenv(FNTRACE_ENV_USER_GROUP);
				}
			}
		}
		if (mode) {
			char buf[16];
			snprintf(buf, sizeof(buf), "%o", (unsigned)td.file_mode);
			setenv(FNTRACE_ENV_MODE, buf, 1);
		} else {
			unsetenv(FNTRACE_ENV_MODE);
		}
		if (callsite)
			setenv(FNTRACE_ENV_CALLSITE, "1", 1);
		else
			unsetenv(FNTRACE_ENV_CALLSITE);
		if (chunk) {
			char buf[32];
			snprintf(buf, sizeof(buf), "%" PRIu64, chunk);
			setenv(FNTRACE_ENV_CHUNK_SIZE, buf, 1);
		}
		if (clock_name)
			setenv(FNTRACE_ENV_CLOCK, clock_name, 1);
		if (ring_chunks) {
			char buf[32];
			snprintf(buf, sizeof(buf), "%" PRIu64, ring_chunks);
			setenv(FNTRACE_ENV_RING, buf, 1);
		} else {
			unsetenv(FNTRACE_ENV_RING);
		}
		if (snap_sig) {
			char buf[32];
			snprintf(buf, sizeof(buf), "%d", snap_sig);
			setenv(FNTRACE_ENV_SNAPSHOT_SIGNAL, buf, 1);
		} else {
			unsetenv(FNTRACE_ENV_SNAPSHOT_SIGNAL);
		}
		if (ft.len)
			setenv(FNTRACE_ENV_FILTERS, ft.text, 1);
		else
			unsetenv(FNTRACE_ENV_FILTERS);
		unsetenv(FNTRACE_ENV_DISABLE);
		setenv(FNTRACE_ENV_LIBCALL, libcall == 2 ? "nest" : libcall ? "1" : "0", 1);
		if (libcall)
			setenv("LD_BIND_NOW", "1", 0);   /* every GOT slot resolved before it is hooked */
		if (args_env && !argsfile[0])
			setenv(FNTRACE_ENV_ARGS, args_env, 1);
		else
			unsetenv(FNTRACE_ENV_ARGS);
		if (patch_sig) {
			char buf[16];
			snprintf(buf, sizeof(buf), "%d", patch_sig);
			setenv(FNTRACE_ENV_PATCH_SIGNAL, buf, 1);
		} else {
			unsetenv(FNTRACE_ENV_PATCH_SIGNAL);
		}
		if (patch_env)
			setenv(FNTRACE_ENV_PATCH, patch_env, 1);
		else
			unsetenv(FNTRACE_ENV_PATCH);
		if (argsfile[0])
			setenv(FNTRACE_ENV_ARGS_FILE, argsfile, 1);
		else
			unsetenv(FNTRACE_ENV_ARGS_FILE);
		drain_child(&drain);
		if (trace_off)
			setenv(FNTRACE_ENV_TRACE_OFF, "1", 1);
		else
			unsetenv(FNTRACE_ENV_TRACE_OFF);
		if (signals_env)
			setenv(FNTRACE_ENV_SIGNALS, signals_env, 1);
		else
			unsetenv(FNTRACE_ENV_SIGNALS);
		tool_exec_prepare();
		execv(prog, argv + optind);
		err = errno;
		(void)!write(pipefd[1], &err, sizeof(err));
		_exit(127);
	}
	free(signals_env);      /* the child has them in its environment */
	patching = patch_env != NULL;
	close(pipefd[1]);
	{
		int err = 0;
		if (read(pipefd[0], &err, sizeof(err)) == (ssize_t)sizeof(err)) {
			waitpid(child_pid, NULL, 0);
			witness_stop();
			fprintf(stderr, "fntrace: cannot run '%s': %s\n", argv[optind], strerror(err));
			trace_dir_remove(&td, absdir);
			trace_dir_unlink_preload(lib, preload_dir);
			sigprocmask(SIG_SETMASK, &mask_before, NULL);   /* (after the clean-up) */
			free(prog);
			free(patch_env);
			return err == ENOENT ? 127 : 126;
		}
		close(pipefd[0]);
	}
	/* the terminal sends SIGINT/SIGQUIT to the program too: let it decide.
	 * Until it has ended: then they are record's again (below) */
	static const int held[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
	struct sigaction held_before[4];
	for (int i = 0; i < 4; i++) {
		struct sigaction sa = { .sa_handler = SIG_IGN };
		sigemptyset(&sa.sa_mask);
		if (i >= 2) {
			sa.sa_sigaction = forward_signal;
			sa.sa_flags = SA_SIGINFO;
			sigaddset(&sa.sa_mask, SIGTERM);
			sigaddset(&sa.sa_mask, SIGHUP);
		}
		sigaction(held[i], &sa, &held_before[i]);
	}
	sigprocmask(SIG_SETMASK, &mask_before, NULL);     /* (one that came meanwhile is handled now) */
	/* a flight recorder's snapshots get their symbol tables as they are
	 * taken.  Not while draining: a walk of a snapshot (a copy of the whole
	 * trace there) would hold up the copying the program's threads wait
	 * for; the end of the record covers those snapshots */
	struct symtab_watch watch = { .dir = absdir, .file_mode = td.file_mode, .dir_mode = td.dir_mode };
	if (drain.ctl) {
		if (drain_wait(&drain, absdir, child_pid, &status))
			die("waitpid: %s", strerror(errno));
		drain_close(&drain);
	} else if (no_symtab) {
		while (waitpid(child_pid, &status, 0) < 0)
			if (errno != EINTR)
				die("waitpid: %s", strerror(errno));
	} else if (wait_child(child_pid, &status, watch_tick, &watch)) {
		die("waitpid: %s", strerror(errno));
	}
	symtab_watch_release(&watch);
	{
		/* the steps below go by the path: it must still name the
		 * directory record made (only the user or root could have
		 * changed it: tracedir.c checked every component) */
		struct stat a, b;
		if (stat(absdir, &a) || fstat(td.fd, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
			die("'%s' no longer names the trace directory record made (it was moved or replaced "
			    "while the program ran); its trace is left where that directory is now", absdir);
	}
	write_session(&td, absdir, n_opts, argv + 1, argc - optind, argv + optind, start, 1, status, child_pid);
	trace_dir_unlink_preload(lib, preload_dir);
	/* the program is gone and its trace complete: Ctrl-C and kill stop
	 * the walks that follow (symbol tables, the summary, --report), and
	 * nothing is forwarded to a pid that may be another process's now */
	child_pid = 0;
	for (int i = 0; i < 4; i++)
		sigaction(held[i], &held_before[i], NULL);
	witness_stop();
	/* names that survive a rebuild: one more walk of the trace (doc/format.md) */
	/* from the walk the summary line makes anyway; -q: no walk, so
	 * names only (doc/portable-traces.md) */
	struct trace_totals totals;
	struct rlimit nofile, fsz;
	int walked = !no_symtab && !record_save_symtabs(absdir, td.file_mode, td.dir_mode, quiet ? NULL : &totals,
						      have_lib_st ? &lib_st : NULL);

	int ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (WIFSIGNALED(status))
		fprintf(stderr, "fntrace: '%s' was killed by signal %d (%s); the events it recorded "
			"up to then are in '%s'\n", argv[optind], WTERMSIG(status),
			signal_desc(WTERMSIG(status)), dir);
	/* the summary walks the trace once (~100 M events/s); --quiet skips it */
	int files = count_fnt(absdir) > 0, recorded = files;
	uint64_t short_pads = 0;
	if (recorded && !quiet)
		recorded = print_record_summary(dir, absdir, walked ? &totals : NULL) != 0;
	if (files)     /* (-P on a stripped program: said above) */
		short_pads = specs_matched(absdir, recorded ? args_env : NULL,
					   recorded && !stripped ? patch_env : NULL, recorded);
	free(patch_env);
	free(args_env);
	if (!recorded && stripped)
		fprintf(stderr, "fntrace: no function events were recorded: '%s' has no symbol table for -P "
			"to find functions in (see above)\n", argv[optind]);
	else if (!recorded && patching)
		fprintf(stderr, "fntrace: no function events were recorded: none of the functions of '%s' that "
			"-P selected and could patch ran ('nm' lists the names it selects from; 'fntrace info', "
			"the ones it skipped and why)\n", argv[optind]);
	else if (!recorded && prog_static && !own_runtime)
		fprintf(stderr, "fntrace: no function events were recorded: '%s' is statically linked, and the "
			"runtime could not be preloaded into it (link it with -lfntrace; see the warning above)\n",
			argv[optind]);
	else if (!recorded && trace_off && !record_filtered(ft.text, 0))
		fprintf(stderr, "fntrace: no function events were recorded: recording started off (--trace=off) "
			"and nothing turned it on (fnt_enable() in the program, --signal SIG@trace_on or -T "
			"FUNC@trace_on)\n");
	else if (!recorded && record_filtered(ft.text, trace_off))
		fprintf(stderr, "fntrace: no function events were recorded: the record-time filters (%s) left "
			"out every call that ran (their globs name functions as 'fntrace report' shows them; "
			"record without them to see the names)\n", record_filtered(ft.text, trace_off));
	else if (!recorded && getrlimit(RLIMIT_FSIZE, &fsz) == 0 && fsz.rlim_cur != RLIM_INFINITY &&
		 fsz.rlim_cur < FNT_HEADER_SIZE)
		fprintf(stderr, "fntrace: no function events were recorded: the file size limit (ulimit -f: %llu "
			"bytes) leaves no room for a trace file, whose header alone takes %u; raise it\n",
			(unsigned long long)fsz.rlim_cur, (unsigned)FNT_HEADER_SIZE);
	else if (!recorded && short_pads)
		fprintf(stderr, "fntrace: no function events were recorded: %" PRIu64 " function%s of '%s' had %s\n",
			short_pads, short_pads == 1 ? "" : "s", argv[optind], patch_reason(FNT_PATCH_SHORT_PAD));
	else if (!recorded && getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur <= 64)
		fprintf(stderr, "fntrace: no function events were recorded: the open-files limit (ulimit -n %llu) "
			"leaves the runtime no descriptor out of the program's way; it needs more than 64 (see "
			"above)\n", (unsigned long long)nofile.rlim_cur);
	else if (!recorded)
		fprintf(stderr, "fntrace: no function events were recorded: was '%s' built with "
			"-finstrument-functions? (without rebuilding, -P FUNC patches the functions "
			"FUNC names)\n", argv[optind]);
	else if (report) {
		char *rargv[] = { "report", "-d", absdir, NULL };
		fflush(stdout);
		optind = 0;
		cmd_name = "report";
		cmd_report(3, rargv);
	}
	free(prog);
	free(ft.text);
	if (WIFSIGNALED(status))
		tool_die_of_signal(WTERMSIG(status));
	return ret;
}
