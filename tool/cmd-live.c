/*
 * cmd-live.c - `fntrace live`: record a program and print its replay while
 * it runs.  The recording is an ordinary `fntrace record` (run as a child
 * process with the same options); this side only follows the trace files
 * read-only (replay_follow in cmd-replay.c), so the program records exactly
 * as fast as without a viewer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tool/tool.h"

static const char live_usage[] =
	"usage: fntrace live [options] [--] program [args...]\n\n"
	"Record a program like 'fntrace record' and print the replay of its calls as\n"
	"it runs, less than a second behind.  When the program ends, everything\n"
	"printed is what 'fntrace replay' prints for the trace.\n\n"
	"  -d, --output DIR     keep the trace in DIR (as 'fntrace record -d DIR' writes\n"
	"                       it).  Without -d the trace goes to a private temporary\n"
	"                       directory (mode 0700, under $TMPDIR or /tmp) that is\n"
	"                       removed when the view ends: ./fntrace.data is left alone\n"
	"      --time           print the wall-clock time of each line, first (the\n"
	"                       'time' column of --fields, added to its list)\n"
	"      --srcline        print file:line of each function\n"
	"      --fields LIST    the columns before each function, as 'fntrace replay\n"
	"                       --fields' takes them (duration,tid,time,elapsed,delta,\n"
	"                       self,module,addr,srcline or none)\n"
	"      --demangle MODE  C++ names: short (default), full, simple or no\n"
	"      --no-demangle    keep C++ names mangled\n"
	"      --color WHEN     colour durations by size: auto (on a terminal), always\n"
	"                       or never\n"
	"      --no-pager       accepted (live never pages: it prints as the program runs)\n"
	"      --debug-dir DIR, --prefix-map OLD=NEW  as for 'fntrace replay'\n"
	"  -h, --help           this help\n\n"
	"Every other option is a 'fntrace record' option (-F, -N, -H, -C, -T, -D, -t,\n"
	"--max-stack, --module, --no-thread, -A, -R, --auto-args, --patch, --callsite,\n"
	"--chunk-size, --clock, --snapshot-signal, --patch-signal, --mode): see\n"
	"'fntrace record --help'.  --ring cannot be followed.\n"
	"The program's own output goes to the same terminal.  Ctrl-C goes to the\n"
	"program; the view ends when it has exited.  The exit status is the\n"
	"program's, as with 'fntrace record'.\n";

/* the private directory live records into without -d, removed at exit */
static char live_tmp[4096];

static pid_t live_record;

static void pass_to_record(int sig)
{
	int e = errno;
	if (live_record > 0)
		kill(live_record, sig);
	errno = e;
}

/* remove what is in the directory open as dfd, subdirectories too, never
 * following a symlink */
static void remove_tree(int dfd)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!unlinkat(dirfd(d), e->d_name, 0) || (errno != EISDIR && errno != EPERM))
			continue;
		int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			remove_tree(sub);
		unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

static void remove_live_tmp(void)
{
	if (!live_tmp[0])
		return;
	int dfd = open(live_tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd >= 0)
		remove_tree(dfd);
	if (rmdir(live_tmp) && errno != ENOENT)
		warning("cannot remove the live view's temporary trace '%s': %s", live_tmp, strerror(errno));
	live_tmp[0] = 0;
}

/* the replay's display options live takes: their view_opt code (or
 * LIVE_FIELDS), and whether they take a value; 0 for any other */
#define LIVE_FIELDS 1
static int display_option(const char *a, const char **value, int *takes)
{
	static const struct {
		const char *name;
		int code, takes;
	} opts[] = {
		{ "--fields", LIVE_FIELDS, 1 }, { "--demangle", 0x120, 1 }, { "--no-demangle", 0x102, 0 },
		{ "--color", 0x141, 1 }, { "--no-pager", 0x140, 0 }, { "--debug-dir", 0x100, 1 },
		{ "--prefix-map", 0x101, 1 },
	};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		size_t n = strlen(opts[i].name);
		if (strncmp(a, opts[i].name, n) || (a[n] && a[n] != '='))
			continue;
		if (a[n] == '=' && !opts[i].takes)
			die_usage("option '%s' takes no value", opts[i].name);
		*value = a[n] == '=' ? a + n + 1 : NULL;
		*takes = opts[i].takes && !a[n];
		return opts[i].code;
	}
	return 0;
}

/* record options that take a value (the next argument unless given as --opt=value) */
static int takes_value(const char *a)
{
	static const char *const opts[] = {
		"-d", "--output", "-F", "--filter", "-N", "--notrace", "-D", "--depth", "-t", "--time-filter",
		"--module", "--no-thread", "--chunk-size", "--clock", "--tid", "-A", "--argument", "-R", "--retval",
		"--patch", "--snapshot-signal", "--patch-signal", "-H", "--hide", "-C", "--caller-filter", "-T",
		"--trigger", "--max-stack", "--signal",
		"--mode",
	};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strcmp(a, opts[i]))
			return 1;
	return 0;
}

int cmd_live(int argc, char **argv)
{
	struct view_opts o = { 0 };
	char **rargv = xcalloc((size_t)argc + 8, sizeof(*rargv));
	int rargc = 0, time_ = 0, srcline = 0, i, status = 0, code, takes;
	const char *fields = NULL, *value;
	char self[PATH_MAX];
	const char *dir = NULL;
	pid_t pid;

	rargv[rargc++] = "fntrace";
	rargv[rargc++] = "record";
	rargv[rargc++] = "--no-drain";      /* the view reads the file as the program writes it */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(live_usage, stdout);
			free(rargv);
			return 0;
		}
		if (!strcmp(a, "--time")) {
			time_ = 1;
			continue;
		}
		if (!strcmp(a, "--srcline")) {
			srcline = 1;
			continue;
		}
		if ((code = display_option(a, &value, &takes)) != 0) {
			if (takes) {
				if (i + 1 >= argc)
					die_usage("option '%s' needs a value", a);
				value = argv[++i];
			}
			if (code == LIVE_FIELDS)
				replay_fields_check(fields = value);   /* before anything runs */
			else
				view_opt(&o, code, value);
			continue;
		}
		if (!strcmp(a, "--ring") || !strncmp(a, "--ring=", 7))
			die_usage("option '--ring' is not for live: a flight recorder rewrites its chunks in place, "
				  "which the live view cannot follow (record with --ring, then 'fntrace replay')");
		if (!strcmp(a, "--report"))
			die_usage("option '--report' is not for live (run 'fntrace report' afterwards)");
		rargv[rargc++] = argv[i];
		if (takes_value(a)) {
			if (i + 1 >= argc)
				die_usage("option '%s' needs a value", a);
			if (!strcmp(a, "-d") || !strcmp(a, "--output"))
				dir = argv[i + 1];
			rargv[rargc++] = argv[++i];
		} else if (!strncmp(a, "--output=", 9)) {
			dir = a + 9;
		} else if (!strncmp(a, "-d", 2) && a[2]) {
			dir = a + 2;
		}
	}
	if (i >= argc)
		die_usage("no program to run (fntrace live [options] -- program [args...])");
	if (!dir) {
		/* no -d: a private directory of its own, as uftrace's live does,
		 * so that ./fntrace.data (a trace the user keeps) is not rotated */
		const char *tmp = getenv("TMPDIR");
		if (!tmp || !*tmp)
			tmp = "/tmp";
		if ((size_t)snprintf(live_tmp, sizeof(live_tmp), "%s/fntrace-live.XXXXXX", tmp) >= sizeof(live_tmp))
			die("$TMPDIR is too long: '%s'", tmp);
		if (!mkdtemp(live_tmp)) {
			int e = errno;
			live_tmp[0] = 0;
			die("cannot create a temporary directory under '%s': %s (set $TMPDIR, or keep the trace "
			    "with -d DIR)", tmp, strerror(e));
		}
		atexit(remove_live_tmp);        /* also when the view dies with an error (the record
						 * child execs or _exits: it never runs it) */
		dir = live_tmp;
		rargv[rargc++] = "-q";          /* no "wrote" line about a directory that goes */
		rargv[rargc++] = "-d";
		rargv[rargc++] = live_tmp;
	}
	rargv[rargc++] = "--";
	for (; i < argc; i++)
		rargv[rargc++] = argv[i];
	rargv[rargc] = NULL;

	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		die("cannot find the fntrace executable: /proc/self/exe: %s", strerror(errno));
	self[n] = 0;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	uint64_t start = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	/* (blocked until the handlers below are in, as record does: one that
	 * came between would end this view with its temporary trace left) */
	sigset_t mask_before;
	tool_hold_signals(&mask_before);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &mask_before, NULL);
		tool_exec_prepare();
		execv(self, rargv);
		fprintf(stderr, "fntrace: cannot run '%s': %s\n", self, strerror(errno));
		_exit(127);
	}
	/* Ctrl-C is the program's to handle; the view lasts until it is gone.
	 * SIGTERM and SIGHUP go to record, which passes them on as it does:
	 * the view then ends with the program, and the temporary trace goes */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	live_record = pid;
	struct sigaction sa = { .sa_handler = pass_to_record };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigprocmask(SIG_SETMASK, &mask_before, NULL);
	o.dir = dir;
	int ret = replay_follow(&o, time_, srcline, fields, pid, &status, start);
	free(rargv);
	remove_live_tmp();
	if (WIFEXITED(status))
		return WEXITSTATUS(status) ? WEXITSTATUS(status) : ret;
	if (WIFSIGNALED(status))
		tool_die_of_signal(WTERMSIG(status));   /* as record does, the program's death passed on */
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
