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

static void pager_wait(void)
{
	if (pager_pid <= 0)
		return;
	/* the pager reads until our end of the pipe closes */
	fflush(stdout);
	close(STDOUT_FILENO);
	while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
		;
	pager_pid = 0;
}

/* the pager has shown everything and quit (before a command that dies of
 * a signal on purpose: record passing on its program's) */
void pager_finish(void)
{
	pager_wait();
}

static void pager_run(void)
{
	const char *pager = getenv("FNTRACE_PAGER");
	int fd[2];

	if (!pager)
		pager = getenv("PAGER");
	if (!pager)
		pager = "less";
	pager += strspn(pager, " \t");
	if (!*pager || !strcmp(pager, "cat"))
		return;
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
	/* leaving the pager early ends us quietly, as with git */
	signal(SIGPIPE, SIG_DFL);
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
