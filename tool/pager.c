/*
 * pager.c - a pager and colour for the text views on a terminal, as git and
 * uftrace do: when standard output is a terminal, replay, report, graph,
 * info and stacks pipe their output through $FNTRACE_PAGER, else $PAGER,
 * else `less` (with LESS=FRSX unless the user set LESS: quit if one screen,
 * keep colours, chop long lines, leave the screen as it was).  --no-pager
 * turns it off; a pager of "" or "cat" means none.  Nothing of this happens
 * when the output is not a terminal, so scripts and pipes see plain text.
 *
 * Colour (--color=auto|always|never, auto by default) marks durations by
 * size: yellow from 10 us, red from 1 ms, magenta from 1 s.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tool/tool.h"

int use_color;
static pid_t pager_pid;
/* "fntrace: the pager '...' failed (exit status 12", written with the
 * status's last digit and fail_tail from a signal handler too */
static char fail_msg[300];
static const char fail_tail[] = "); use --no-pager or set FNTRACE_PAGER\n";

/* The shell could not run the pager (exit status 126 or 127): nothing was
 * shown, so that is an error, not a quiet success */
static void pager_check(int status)
{
	if (WIFEXITED(status) && (WEXITSTATUS(status) == 126 || WEXITSTATUS(status) == 127)) {
		char digit = (char)('0' + WEXITSTATUS(status) % 10);
		ssize_t r = write(STDERR_FILENO, fail_msg, strlen(fail_msg));
		r += write(STDERR_FILENO, &digit, 1);
		r += write(STDERR_FILENO, fail_tail, sizeof(fail_tail) - 1);
		(void)r;
		_exit(1);
	}
}

static void pager_wait(void)
{
	int status = 0;
	if (pager_pid <= 0)
		return;
	/* the pager reads until our end of the pipe closes */
	fflush(stdout);
	close(STDOUT_FILENO);
	while (waitpid(pager_pid, &status, 0) < 0 && errno == EINTR)
		;
	pager_pid = 0;
	pager_check(status);
}

/* The pager stopped reading: the user left it early, and we end quietly
 * as git does; or it never ran, which pager_check tells */
static void on_sigpipe(int sig)
{
	int status;
	/* (our end of its pipe closed first: a SIGPIPE from another
	 * descriptor, stderr into a closed pipe, must not wait for a pager
	 * that is still reading) */
	close(STDOUT_FILENO);
	if (pager_pid > 0 && waitpid(pager_pid, &status, 0) == pager_pid)
		pager_check(status);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* the pager has shown everything and quit (before a command that dies of
 * a signal on purpose: record passing on its program's) */
void pager_finish(void)
{
	pager_wait();
}

/* whether the command a pager's text starts with can be run: a name
 * found in $PATH or a path to an executable.  Texts the shell would read
 * otherwise (quotes, variables, assignments, builtins) are given the
 * benefit of the doubt: pager_wait tells when they failed. */
static int pager_found(const char *pager, char *word, size_t cap)
{
	size_t n = strcspn(pager, " \t\n;|&<>()");
	if (!n || n >= cap || strcspn(pager, "'\"$`\\=") < n)
		return 1;
	memcpy(word, pager, n);
	word[n] = 0;
	if (strchr(word, '/'))
		return access(word, X_OK) == 0;
	static const char *const builtins[] = { "exit", "exec", "eval", "true", "false", ":", ".", "command" };
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(word, builtins[i]))
			return 1;
	const char *path = getenv("PATH");
	for (const char *d = path ? path : "/usr/bin:/bin"; *d;) {
		size_t len = strcspn(d, ":");
		char full[4096];
		const char *dir = len ? d : ".";       /* an empty entry: the current directory, as sh reads it */
		size_t dlen = len ? len : 1;
		if (dlen + n + 2 <= sizeof(full)) {
			memcpy(full, dir, dlen);
			full[dlen] = '/';
			memcpy(full + dlen + 1, word, n + 1);
			if (access(full, X_OK) == 0)
				return 1;
		}
		d += len + (d[len] == ':');
	}
	return 0;
}

static void pager_run(void)
{
	const char *pager = getenv("FNTRACE_PAGER"), *var = "FNTRACE_PAGER";
	char word[256];
	int fd[2];

	if (!pager)
		pager = getenv("PAGER"), var = "PAGER";
	if (!pager)
		pager = "less", var = NULL;
	pager += strspn(pager, " \t");
	if (!*pager || !strcmp(pager, "cat"))
		return;
	if (!pager_found(pager, word, sizeof(word))) {
		/* less is not installed everywhere (slim containers) */
		if (var)
			warning("pager '%s' not found (%s); writing to the terminal", word, var);
		return;
	}
	snprintf(fail_msg, sizeof(fail_msg), "fntrace: the pager '%.200s' failed (exit status 12", pager);
	if (pipe(fd))
		return;
	fflush(stdout);
	pager_pid = fork();
	if (pager_pid < 0) {
		close(fd[0]);
		close(fd[1]);
		pager_pid = 0;
		return;
	}
	if (pager_pid == 0) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		setenv("LESS", "FRSX", 0);
		setenv("LV", "-c", 0);
		tool_exec_prepare();
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		fprintf(stderr, "fntrace: cannot run the pager '%s': %s (use --no-pager)\n", pager, strerror(errno));
		_exit(127);
	}
	dup2(fd[1], STDOUT_FILENO);
	close(fd[0]);
	close(fd[1]);
	signal(SIGPIPE, on_sigpipe);
	atexit(pager_wait);
}

void pager_start(const struct view_opts *o)
{
	int tty = isatty(STDOUT_FILENO);
	use_color = o->color > 0 || (o->color == 0 && tty);
	if (tty && !o->no_pager)
		pager_run();
}

/* the colour of a duration (5 bytes), or NULL */
static const char *dur_color(uint64_t ns)
{
	if (!use_color || ns < 10000)
		return NULL;
	return ns >= 1000000000ull ? "\033[35m" : ns >= 1000000 ? "\033[31m" : "\033[33m";
}

/* "  1.234 ms" with the colour of its size when colour is on */
void format_duration_color(char *buf, size_t len, uint64_t ns)
{
	char plain[24];
	const char *c = dur_color(ns);
	format_duration(plain, sizeof(plain), ns);
	if (c)
		snprintf(buf, len, "%s%s\033[0m", c, plain);
	else
		snprintf(buf, len, "%s", plain);
}

char *put_duration_color(char *p, uint64_t ns)
{
	const char *c = dur_color(ns);
	if (!c)
		return put_duration(p, ns);
	memcpy(p, c, 5);
	p = put_duration(p + 5, ns);
	memcpy(p, "\033[0m", 4);
	return p + 4;
}
