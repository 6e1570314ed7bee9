/*
 * progress.c - "fntrace: exporting 'x.json': 42%" on a terminal while a long
 * walk runs (export, report, graph, replay into a file), as perf and git
 * show theirs: nothing for the first second (FNTRACE_PROGRESS_DELAY_MS),
 * then the share of the trace's event chunks the walk has begun, five times
 * a second, on one line of stderr that is erased at the end.  Only when
 * stderr is a terminal and the view's own output is not going to it.  A
 * timer signal does the printing, so the walk's loops stay untouched.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "tool/tool.h"

static struct trace *progress_trace;
static uint64_t progress_total;
static char progress_label[256];
static volatile sig_atomic_t progress_shown;

static void on_tick(int sig)
{
	char line[320];
	size_t n = 0, l = strlen(progress_label);
	uint64_t pct = progress_trace->chunks_walked * 100 / progress_total;
	(void)sig;
	if (pct > 100)
		pct = 100;
	memcpy(line, "\rfntrace: ", 10);
	n = 10;
	memcpy(line + n, progress_label, l);
	n += l;
	line[n++] = ' ';
	if (pct >= 100)
		line[n++] = '1';
	if (pct >= 10)
		line[n++] = (char)('0' + pct / 10 % 10);
	line[n++] = (char)('0' + pct % 10);
	line[n++] = '%';
	(void)!write(STDERR_FILENO, line, n);
	progress_shown = 1;
}

void progress_begin(struct trace *t, const char *what, int output_to_terminal)
{
	const char *env = getenv("FNTRACE_PROGRESS_DELAY_MS");
	long delay = env && *env ? atol(env) : 1000;
	struct sigaction sa;
	struct itimerval it = { 0 };

	if (!isatty(STDERR_FILENO) || output_to_terminal)
		return;
	progress_total = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++)
			progress_total += t->procs[i].threads[k].n_chunks;
	if (!progress_total)
		return;
	progress_trace = t;
	snprintf(progress_label, sizeof(progress_label), "%s", what);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	if (delay < 1)
		delay = 1;
	it.it_value.tv_sec = delay / 1000;
	it.it_value.tv_usec = delay % 1000 * 1000;
	it.it_interval.tv_usec = 200000;
	setitimer(ITIMER_REAL, &it, NULL);
}

void progress_end(void)
{
	struct itimerval off = { 0 };
	if (!progress_trace)
		return;
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN);   /* a tick already raised must not end us */
	if (progress_shown)
		(void)!write(STDERR_FILENO, "\r\033[K", 4);
	progress_trace = NULL;
	progress_shown = 0;
}
