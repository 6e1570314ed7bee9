/*
 * summary.c - what a trace adds up to (events, bytes, losses), for the
 * one line that `record` and `export` print when they finish and for
 * `info`.  One place computes it, so the three never disagree.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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
	patch_totals(t, &out->patch);
}

/* Why a process's events were lost, kind by kind, from its header:
 * "3 in signal handlers, 398 deeper than the shadow stack"; `all`
 * names the first two kinds even when they are 0 (info's line) */
void lost_kinds_text(const struct fnt_file_header *h, int all, char *out, size_t cap)
{
	static const struct { int res; const char *what; } kinds[] = {
		{ -1, "in signal handlers" },
		{ -2, "for lack of space" },
		{ FNT_RES_LOST_SHADOW, "deeper than the shadow stack" },
		{ FNT_RES_LOST_UNSAFE, "in children without TLS of their own (vfork, clone)" },
		{ FNT_RES_LOST_STACKS, "on stacks past the 4096 parked at once (coroutines)" },
		{ FNT_RES_LOST_ADDR, "with an address the trace cannot hold (0 or not user space)" },
		{ FNT_RES_LOST_NOCLOCK, "in threads that entered seccomp strict mode" },
	};
	size_t len = 0;
	_Static_assert(FNT_CORO_STACKS == 4096, "the text above says 4096");
	out[0] = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && len < cap; i++) {
		uint64_t n = kinds[i].res == -1 ? h->lost_reentrant : kinds[i].res == -2 ? h->lost_nospace :
			     h->reserved[kinds[i].res];
		if (!n && !(all && kinds[i].res < 0))
			continue;
		if (all && kinds[i].res == FNT_RES_LOST_NOCLOCK)
			continue;       /* (info says it on a line of its own) */
		len += (size_t)snprintf(out + len, cap - len, "%s%" PRIu64 " %s", len ? ", " : "", n, kinds[i].what);
	}
}

/* 987, 12.3 K, 4.56 M, 7.89 G: as a person reads a count at a glance */
void human_count(char *buf, size_t len, uint64_t n)
{
	if (n < 10000)
		snprintf(buf, len, "%" PRIu64, n);
	else if (n < 999950)           /* (what rounds to 1000.0 K reads 1.0 M) */
		snprintf(buf, len, "%.1f K", (double)n / 1e3);
	else if (n < 999950000ull)
		snprintf(buf, len, "%.1f M", (double)n / 1e6);
	else
		snprintf(buf, len, "%.1f G", (double)n / 1e9);
}

/* bytes in decimal units, as ls -h --si and perf do: 512 B, 12.3 KB, 26.0 MB */
void human_bytes(char *buf, size_t len, uint64_t n)
{
	if (n < 1000)
		snprintf(buf, len, "%" PRIu64 " B", n);
	else if (n < 999950)            /* (what rounds to 1000.0 KB reads 1.0 MB) */
		snprintf(buf, len, "%.1f KB", (double)n / 1e3);
	else if (n < 999950000)
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
	if (tt.patch.modules)
		print_patch_totals(&tt.patch);
	if (!tt.events && tt.lost) {    /* instrumented, but nothing could be written (ulimit -f, disk full) */
		fprintf(stderr, "fntrace: wrote '%s': no events, %" PRIu64 " lost ('fntrace info' says why)\n", shown,
			tt.lost);
		return 1;
	}
	if (!tt.events)
		return 0;
	human_count(events, sizeof(events), tt.events);
	human_bytes(size, sizeof(size), tt.disk_bytes);
	fprintf(stderr, "fntrace: wrote '%s': %s events, %s (%.1f B/event), %" PRIu64 " lost\n", shown, events,
		size, (double)tt.disk_bytes / (double)tt.events, tt.lost);
	return 1;
}

/* FNT_PATCH_* as `info` and `record` say it */
const char *patch_reason(unsigned what)
{
	static const char *const why[FNT_PATCH_N_REASONS] = {
		[FNT_PATCH_TOO_SHORT] = "too short: its first 5 bytes are not whole instructions of its own",
		[FNT_PATCH_BRANCH_INTO] = "a branch lands inside its first bytes",
		[FNT_PATCH_LOOP_TO_START] = "it jumps back to its first instruction (a loop would count as calls)",
		[FNT_PATCH_CALL] = "an indirect call among its first bytes",
		[FNT_PATCH_CANNOT_MOVE] = "an instruction among its first bytes cannot move (loop, jrcxz, "
					  "a call to the next instruction, a target out of reach)",
		[FNT_PATCH_NOT_TEXT] = "not in .text (.init, .plt, .fini, _start)",
		[FNT_PATCH_NO_SIZE] = "its symbol has no size",
		[FNT_PATCH_UNDECODABLE] = "the disassembler cannot decode it",
		[FNT_PATCH_NO_ROOM] = "no memory for its trampoline within 2 GB",
		[FNT_PATCH_FRAGMENT] = "a part of another function (.cold), entered by a jump, not a call",
		[FNT_PATCH_NO_DISASM] = "the capstone disassembler (libcapstone4) could not be loaded",
		[FNT_PATCH_PADS] = "patchable entries selected",
		[FNT_PATCH_SHORT_PAD] = "fewer than 5 bytes of NOPs at their entry, too few for the call "
					"(-fpatchable-function-entry=N,M needs N - M >= 5; =5 is the usual)",
	};
	return what < FNT_PATCH_N_REASONS && why[what] ? why[what] : "not patched";
}

/* a PATCH record about a whole module (else about one function) */
int patch_of_module(unsigned what)
{
	return what == FNT_PATCH_DONE || what == FNT_PATCH_NO_DISASM || what == FNT_PATCH_SHORT_PAD ||
	       what == FNT_PATCH_PADS;
}

/* PATCH records by kind, name and (a function's) address, the largest
 * count first */
static int cmp_patch(const void *a, const void *b)
{
	const struct trace_patch *x = *(const struct trace_patch *const *)a, *y = *(const struct trace_patch *const *)b;
	int c = strcmp(x->name, y->name);
	if (x->what != y->what)
		return x->what < y->what ? -1 : 1;
	if (c)
		return c;
	if (!patch_of_module(x->what) && x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->count > y->count ? -1 : x->count < y->count;
}

/* The PATCH records of every process, each module or function once: a
 * library loaded 6 times, or a program that execs itself, writes the same
 * records again, which say nothing more (sorted by cmp_patch; free it) */
const struct trace_patch **patch_records(const struct trace *t, const struct trace_process *only, size_t *n)
{
	size_t all = 0, k = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		if (!only || only == &t->procs[i])
			all += t->procs[i].n_patches;
	const struct trace_patch **v = xmalloc((all + 1) * sizeof(*v));
	for (size_t i = 0; i < t->n_procs; i++)
		if (!only || only == &t->procs[i])
			for (size_t j = 0; j < t->procs[i].n_patches; j++)
				v[k++] = &t->procs[i].patches[j];
	qsort(v, k, sizeof(*v), cmp_patch);
	*n = 0;
	for (size_t j = 0; j < k; j++)
		if (!*n || v[*n - 1]->what != v[j]->what || strcmp(v[*n - 1]->name, v[j]->name) ||
		    (!patch_of_module(v[j]->what) && v[*n - 1]->addr != v[j]->addr))
			v[(*n)++] = v[j];
	return v;
}

/* what -P and the pads did, over every process (each module once) */
void patch_totals(const struct trace *t, struct patch_totals *pt)
{
	size_t n;
	const struct trace_patch **v = patch_records(t, NULL, &n);
	memset(pt, 0, sizeof(*pt));
	for (size_t k = 0; k < n; k++) {
		const struct trace_patch *tp = v[k];
		if (tp->what == FNT_PATCH_DONE) {
			pt->modules++;
			pt->patched += tp->count;
		} else if (tp->what == FNT_PATCH_NO_DISASM) {
			pt->modules++;
			pt->no_disasm += tp->count;
		} else if (tp->what == FNT_PATCH_SHORT_PAD) {
			pt->short_pads += tp->count;
		} else if (tp->what == FNT_PATCH_PADS) {
			pt->pads += tp->count;
		} else {
			pt->skipped++;
		}
	}
	free(v);
}

void print_patch_totals(const struct patch_totals *pt)
{
	if (pt->no_disasm)
		fprintf(stderr, "fntrace: -P could not patch %" PRIu64 " functions: %s\n", pt->no_disasm,
			patch_reason(FNT_PATCH_NO_DISASM));
	fprintf(stderr, "fntrace: -P patched %" PRIu64 " function%s, skipped %" PRIu64 "%s\n", pt->patched,
		pt->patched == 1 ? "" : "s", pt->skipped, pt->skipped ? " ('fntrace info' lists them and why)" : "");
}
