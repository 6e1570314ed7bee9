/*
 * main.c - the fntrace command: a table of subcommands, one file each
 * (cmd-<name>.c), dispatched git-style.
 *
 * Exit codes: 0 ok, 1 failure, 2 usage error; `record` returns the traced
 * program's status (128+signal when it died by one, 127/126 when it could
 * not be started).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tool/tool.h"

/* Past RLIMIT_FSIZE (`ulimit -f`) the kernel sends SIGXFSZ, which kills by
 * default: the tool ignores it, so that a write that does not fit fails
 * with EFBIG and is reported like any other.  Programs it starts (the one
 * `record` runs, the pager) get the disposition it was started with:
 * ignored signals stay ignored across exec. */
static struct sigaction xfsz_inherited;
/* SIGCHLD ignored (inherited across exec, as some daemons and shells leave
 * it) makes the kernel reap the tool's children itself: record's waitpid
 * then found no child, died without the program's exit status, and left
 * the ring's last slots undrained.  The tool takes the default; the
 * programs it starts get what it was started with. */
static struct sigaction chld_inherited;

void tool_exec_prepare(void)
{
	sigaction(SIGXFSZ, &xfsz_inherited, NULL);
	sigaction(SIGCHLD, &chld_inherited, NULL);
}

/* SIGINT, SIGQUIT, SIGTERM and SIGHUP blocked (the mask before in
 * *before), from before record or live starts its child until its
 * handlers for them are in: one that came between ended the tool at once
 * (record-signal-forward) */
void tool_hold_signals(sigset_t *before)
{
	sigset_t held;
	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGQUIT);
	sigaddset(&held, SIGTERM);
	sigaddset(&held, SIGHUP);
	sigprocmask(SIG_BLOCK, &held, before);
}

/* The program died of signal sig: the trace is complete, so record (and
 * live) dies of the same signal, as the program would have without it: a shell then
 * sees WIFSIGNALED (an interactive loop stops at a Ctrl-C) and a core
 * status.  Record dumps no core of its own.  Returns only for a signal
 * whose default action does not end a process (then 128+sig is the exit). */
void tool_die_of_signal(int sig)
{
	struct rlimit none = { 0, 0 };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set;
	fflush(NULL);
	pager_finish();         /* (--report on a terminal) */
	setrlimit(RLIMIT_CORE, &none);
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "record", cmd_record, "run a program and record every function entry and exit" },
	{ "replay", cmd_replay, "show the recorded calls, nested per thread, with durations" },
	{ "report", cmd_report, "per-function profile: calls, total, self, avg, min, max time" },
	{ "graph",  cmd_graph,  "the call tree under a function (or its callers), merged by path" },
	{ "stacks", cmd_stacks, "the call stacks the program captured with fnt_capture_stack()" },
	{ "info",   cmd_info,   "what a trace holds: command, threads, modules, events, losses" },
	{ "tui",    cmd_tui,    "browse a trace on the terminal: call graph, report, replay" },
	{ "live",   cmd_live,   "record a program and print the replay while it runs" },
	{ "archive", cmd_archive, "bundle a trace with the module and debug files it needs, to read elsewhere" },
	{ "export", cmd_export, "write the trace for other viewers: perfetto, chrome, speedscope, folded, svg, html" },
	{ "perf-script", cmd_perf_script, "perf script's samples with the real callers of traced calls put back" },
	{ "perf-inject", cmd_perf_inject, "a perf.data with the real return addresses of traced calls put back" },
};

/* word names a program that could run: a path to an executable regular
 * file, or a name found in $PATH (what uftrace takes in place of a command) */
static int is_program(const char *word)
{
	struct stat st;
	if (!*word)
		return 0;
	if (strchr(word, '/'))
		return !stat(word, &st) && S_ISREG(st.st_mode) && !access(word, X_OK);
	const char *path = getenv("PATH");
	if (!path)
		return 0;
	while (*path) {
		size_t n = strcspn(path, ":");
		char buf[4096];
		if (n && n + strlen(word) + 2 <= sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, word);
			if (!stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK))
				return 1;
		}
		path += n + (path[n] == ':');
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fntrace <command> [options] [-- program args...]\n\n"
		   "Record and show function calls of programs built with -finstrument-functions\n"
		   "(or -pg -mfentry / -fpatchable-function-entry, which also see arguments).\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nTypical use:\n"
		   "  gcc -finstrument-functions -g -O2 -o prog prog.c\n"
		   "  fntrace record -- ./prog args     # writes ./fntrace.data\n"
		   "  fntrace replay                    # calls per thread with durations\n"
		   "  fntrace report                    # per-function profile\n\n"
		   "'fntrace <command> --help' describes each command's options;\n"
		   "'fntrace --version' prints the version and the trace format's.\n");
}

int main(int argc, char **argv)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigaction(SIGXFSZ, &ign, &xfsz_inherited);
	sigaction(SIGCHLD, &dfl, &chld_inherited);
	if (argc < 2) {          /* as git and perf: the command list */
		usage(stdout);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("fntrace %s (trace format %d)\n", FNT_VERSION, FNT_FORMAT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			cmd_name = commands[i].name;
			return commands[i].fn(argc - 1, argv + 1);
		}
	if (argv[1][0] == '-')
		die_usage("unknown option '%s'", argv[1]);
	if (!strcmp(argv[1], "dump"))    /* uftrace's dump --chrome / --flame-graph */
		die_usage("'dump' is not a fntrace command: uftrace's 'dump --chrome' is 'fntrace export -f chrome', "
			  "'dump --flame-graph' is 'fntrace export -f folded' (or -f svg), and 'fntrace replay -f json' "
			  "writes every call as a record");
	if (is_program(argv[1]))         /* uftrace's 'uftrace ./prog' */
		die_usage("'%s' is not a fntrace command; to trace that program: 'fntrace live %s%s' (or 'fntrace "
			  "record %s%s', then 'fntrace replay')", argv[1], argv[1], argc > 2 ? " ..." : "", argv[1],
			  argc > 2 ? " ..." : "");
	die_usage("'%s' is not a fntrace command", argv[1]);
}
