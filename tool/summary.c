/*
 * summary.c - what a trace adds up to (events, bytes, losses), for the
 * one line that `record` and `export` print when they finish and for
 * `info`.  One place computes it, so the three never disagree.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "tool/tool.h"

static int count_event(void *ctx, const struct trace_event *ev)
{
	(void)ctx;
	(void)ev;
	return 0;
}

void trace_totals(struct trace *t, struct trace_totals *out)
{
	trace_walk(t, 0, count_event, NULL);
	trace_totals_walked(t, out);
}

void trace_totals_walked(struct trace *t, struct trace_totals *out)
{
	memset(out, 0, sizeof(*out));
	out->events = trace_total_events(t);
	for (size_t i = 0; i < t->n_procs; i++) {
		struct stat st;
		if (!stat(t->procs[i].file, &st)) {
			out->file_bytes += (uint64_t)st.st_size;
			out->disk_bytes += (uint64_t)st.st_blocks * 512;
		}
		out->lost += fnt_header_lost(&t->procs[i].hdr);
	}
}

/* 987, 12.3 K, 4.56 M, 7.89 G: as a person reads a count at a glance */
void human_count(char *buf, size_t len, uint64_t n)
{
	if (n < 10000)
		snprintf(buf, len, "%" PRIu64, n);
	else if (n < 10000000)
		snprintf(buf, len, "%.1f K", (double)n / 1e3);
	else if (n < 10000000000ull)
		snprintf(buf, len, "%.1f M", (double)n / 1e6);
	else
		snprintf(buf, len, "%.1f G", (double)n / 1e9);
}

/* bytes in decimal units, as ls -h --si and perf do: 512 B, 12.3 KB, 26.0 MB */
void human_bytes(char *buf, size_t len, uint64_t n)
{
	if (n < 1000)
		snprintf(buf, len, "%" PRIu64 " B", n);
	else if (n < 1000000)
		snprintf(buf, len, "%.1f KB", (double)n / 1e3);
	else if (n < 1000000000)
		snprintf(buf, len, "%.1f MB", (double)n / 1e6);
	else
		snprintf(buf, len, "%.2f GB", (double)n / 1e9);
}

int print_record_summary(const char *shown, const char *dir, const struct trace_totals *walked)
{
	struct trace *t;
	struct trace_totals tt;
	char err[512], events[32], size[32];

	if (walked) {
		tt = *walked;
	} else {
		if (trace_open(&t, dir, err, sizeof(err)))
			return -1;
		trace_totals(t, &tt);
		trace_close(t);
	}
	if (!tt.events)
		return 0;
	human_count(events, sizeof(events), tt.events);
	human_bytes(size, sizeof(size), tt.disk_bytes);
	fprintf(stderr, "fntrace: wrote '%s': %s events, %s (%.1f B/event), %" PRIu64 " lost\n", shown, events,
		size, (double)tt.disk_bytes / (double)tt.events, tt.lost);
	return 1;
}
