/*
 * cmd-info.c - `fntrace info`: what a trace holds.  It decodes every event
 * (to count them and to find damage) but names nothing, so it stays fast.
 */
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include "tool/tool.h"

/* the program's text (names, paths, argv) with its control characters
 * escaped (text_safe); four buffers, so one printf can take four */
static const char *safe(const char *s)
{
	static char buf[4][16400];
	static int k;
	k = (k + 1) % 4;
	return text_safe(s, buf[k], sizeof(buf[k]));
}

static const char info_usage[] =
	"usage: fntrace info [options]\n\n"
	"Describe a trace: the command, when and how long it ran, how it ended, the\n"
	"clock, every process, thread and module, event counts and losses.\n\n"
	"  -d, --data DIR         trace directory (default: fntrace.data)\n"
	"      --prefix-map OLD=NEW, --debug-dir DIR   as for replay (module checks)\n"
	PAGER_HELP
	"  -h, --help             this help\n";

static void print_time(const char *label, uint64_t real_ns)
{
	time_t sec = (time_t)(real_ns / 1000000000ull);
	struct tm tm;
	char buf[64];
	localtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z", &tm);
	printf("%s%s\n", label, buf);
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

/* the snapshots (fnt_snapshot, --snapshot-signal) taken into this trace */
static int cmp_name(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);   /* "snap-9" before "snap-10" */
}

static void list_snapshots(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "snapshot-", 9)) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	if (n) {
		qsort(names, n, sizeof(*names), cmp_name);
		printf("\nsnapshots: %zu (read one with -d %s/NAME)\n", n, dir);
		for (size_t i = 0; i < n; i++)
			printf("  %s\n", safe(names[i]));
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* the FILTERS record as the record options that produce it */
/* children that could not be traced (FNT_META_UNTRACED records) */
static void print_untraced_total(const struct trace *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		n += t->procs[i].n_untraced + t->procs[i].hdr.children_nofile;
	if (n)
		printf("untraced: %zu process%s started by the program (see below)\n", n, n == 1 ? "" : "es");
}

static void print_untraced(const struct trace_process *p)
{
	static const char *const why[] = {
		[FNT_UNTRACED_SETID] = "a setuid/setgid program (secure execution ignores LD_PRELOAD)",
		[FNT_UNTRACED_CAPS] = "a program with file capabilities (secure execution ignores LD_PRELOAD)",
		[FNT_UNTRACED_NO_FILE] = "forked after the user changed: cannot create its trace file in",
		[FNT_UNTRACED_STATIC] = "a statically linked program (no loader to preload the runtime)",
		[FNT_UNTRACED_ARCH] = "a program for another architecture (the runtime cannot be loaded into it)",
		[FNT_UNTRACED_SANDBOX] = "forked under a seccomp filter that forbids creating its trace file in",
		[FNT_UNTRACED_ELSEWHERE] = "forked where the path of the trace directory names another directory "
					   "(a mount namespace or chroot), so no trace file was made in",
	};
	for (size_t k = 0; k < p->n_untraced; k++) {
		const struct trace_untraced *u = &p->untraced[k];
		const char *w = u->reason < sizeof(why) / sizeof(why[0]) && why[u->reason] ? why[u->reason] :
				"not traced";
		if (u->pid)
			printf("  untraced child %u: %s '%s'\n", u->pid, w, safe(u->path));
		else
			printf("  untraced exec: %s '%s'\n", w, safe(u->path));
	}
	uint64_t nf = p->hdr.children_nofile;
	if (nf)
		printf("  untraced children: %" PRIu64 " forked child%s could not create %s trace file and ran "
		       "untraced (Landlock rules, no descriptor left or a full disk, for example)\n", nf,
		       nf == 1 ? "" : "ren", nf == 1 ? "its" : "their");
}

/* -P on code built without instrumentation: per module, what was patched
 * and each function left alone with the reason; the pads' modules (each
 * once: a library loaded again says the same) */
static void print_patches(const struct trace *t, const struct trace_process *p)
{
	size_t n;
	const struct trace_patch **v = patch_records(t, p, &n);
	for (size_t k = 0; k < n; k++) {
		const struct trace_patch *tp = v[k];
		if (tp->what == FNT_PATCH_DONE)
			printf("  -P: %u function%s patched in '%s'\n", tp->count, tp->count == 1 ? "" : "s",
			       safe(tp->name));
		else if (tp->what == FNT_PATCH_NO_DISASM)
			printf("  -P: nothing patched in '%s' (%u selected): %s\n", safe(tp->name), tp->count,
			       patch_reason(tp->what));
		else if (tp->what == FNT_PATCH_PADS)
			printf("  pads: %u function%s of '%s' selected\n", tp->count, tp->count == 1 ? "" : "s",
			       safe(tp->name));
		else if (tp->what == FNT_PATCH_SHORT_PAD)
			printf("  pads: %u function%s of '%s' not traced: %s\n", tp->count, tp->count == 1 ? "" : "s",
			       safe(tp->name), patch_reason(tp->what));
	}
	for (size_t k = 0; k < n; k++) {
		const struct trace_patch *tp = v[k];
		if (patch_of_module(tp->what))
			continue;
		char where[64];
		snprintf(where, sizeof(where), "0x%" PRIx64, tp->addr);
		printf("  -P skipped %-30s %s: %s\n", safe(tp->name), where, patch_reason(tp->what));
	}
	free((void *)v);
}

/* ns as record's options take it: 2ms, 1500us; returns its length */
static size_t ns_unit(uint64_t ns, char *out)
{
	if (ns && ns % 1000000000ull == 0)
		return (size_t)sprintf(out, "%" PRIu64 "s", ns / 1000000000u);
	if (ns && ns % 1000000ull == 0)
		return (size_t)sprintf(out, "%" PRIu64 "ms", ns / 1000000u);
	if (ns && ns % 1000ull == 0)
		return (size_t)sprintf(out, "%" PRIu64 "us", ns / 1000u);
	return (size_t)sprintf(out, "%" PRIu64 "ns", ns);
}

static void print_filters(const char *text)
{
	const char *p = text;
	printf("filters:");
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		if (l >= 2 && p[1] == ' ') {
			const char *opt = p[0] == 'F' ? "-F" : p[0] == 'N' ? "-N" : p[0] == 'D' ? "-D" :
					  p[0] == 't' ? "-t" : p[0] == 'm' ? "--module" : p[0] == 'T' ? "--no-thread" :
					  p[0] == 'H' ? "-H" : p[0] == 'C' ? "-C" : p[0] == 'S' ? "--max-stack" :
					  p[0] == 'g' ? "-T" : NULL;
			char val[4200];
			int vl = (int)(l - 2 < sizeof(val) - 32 ? l - 2 : sizeof(val) - 32);
			memcpy(val, p + 2, (size_t)vl);
			val[vl] = 0;
			if (p[0] == 't') {
				vl = (int)ns_unit(strtoull(val, NULL, 10), val);
			} else if (p[0] == 'g' && strstr(val, "time=")) {   /* -T FUNC@...,time=NS */
				char *tm = strstr(val, "time=") + 5, *end;
				uint64_t ns = strtoull(tm, &end, 10);
				char rest[4200];
				snprintf(rest, sizeof(rest), "%s", end);
				size_t k = ns_unit(ns, tm);
				snprintf(tm + k, sizeof(val) - (size_t)(tm + k - val), "%s", rest);
				vl = (int)strlen(val);
			}
			if (opt) {
				int plain = 1;
				for (int i = 0; i < vl; i++)
					if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%", val[i]))
						plain = 0;
				printf(plain ? " %s %.*s" : " %s '%.*s'", opt, vl, val);
			}
		}
		p += l + (nl ? 1 : 0);
	}
	printf("\n");
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* why a trace runs on CLOCK_MONOTONIC: record's --clock chose it, or the
 * runtime found the tsc unusable, or FNTRACE_CLOCK in the environment
 * chose it (which record passes on, and which the trace does not say) */
static const char *clock_why(const struct trace *t)
{
	const char *o = t->session_options;
	if (o && (strstr(o, "--clock monotonic") || strstr(o, "--clock=monotonic")))
		return "chosen with --clock monotonic";
	return "the tsc was not usable, or FNTRACE_CLOCK chose it";
}

/* The pid that `fntrace record` started: as the session says, or in a
 * trace older than that, the one pid whose images' parent is no process
 * of the trace; 0 if that is not one pid.  (The heuristic takes a forked
 * child of an untraced shell for the command.) */
static uint32_t root_pid(const struct trace *t)
{
	if (t->session_pid)
		return t->session_pid;
	uint32_t root = 0, *pids = xmalloc((t->n_procs ? t->n_procs : 1) * sizeof(*pids));
	for (size_t i = 0; i < t->n_procs; i++)
		pids[i] = t->procs[i].hdr.pid;
	if (t->n_procs)
		qsort(pids, t->n_procs, sizeof(*pids), cmp_u32);
	for (size_t i = 0; i < t->n_procs; i++) {
		if (bsearch(&t->procs[i].hdr.ppid, pids, t->n_procs, sizeof(*pids), cmp_u32))
			continue;
		if (root && root != t->procs[i].hdr.pid) {
			root = 0;
			break;
		}
		root = t->procs[i].hdr.pid;
	}
	free(pids);
	return root;
}

/* How an image ended, as far as the trace knows.  The runtime marks a
 * return or exit(), and _exit(), _Exit() or syscall(SYS_exit_group) with
 * the status (end_flags); for the command itself the session has the wait
 * status; any other image without the mark was killed, crashed, or left by
 * a way the runtime does not see (the system call by hand), and the trace
 * cannot tell which. */
static void print_ended(const struct trace *t, const struct trace_process *p, uint32_t root)
{
	static const char *const how[] = { "", "_exit", "_Exit", "exit_group" };
	unsigned h = (p->hdr.end_flags >> FNT_END_HOW_SHIFT) & 15;
	int st = t->session_status;
	printf("  ended: ");
	if (p->hdr.flags & FNT_FLAG_SNAPSHOT)
		printf("not yet (a snapshot of the running process)\n");
	else if ((p->hdr.end_flags & FNT_END_EXIT) && (p->hdr.end_flags & FNT_END_STATUS) &&
		 (p->hdr.exit_status & 0xff))
		printf("exited with %d\n", (int)(p->hdr.exit_status & 0xff));
	else if (p->hdr.end_flags & FNT_END_EXIT)
		printf("exited normally\n");   /* (status 0, or a trace older than the status) */
	else if (p->hdr.end_flags & FNT_END_EXIT_CALL)
		printf("exited with %d (%s)\n", (int)(p->hdr.exit_status & 0xff),
		       h < sizeof(how) / sizeof(how[0]) && h ? how[h] : "_exit");
	else if (p->exec_replaced)
		printf("replaced by exec\n");
	else if (root && p->hdr.pid == root && t->session_has_status && WIFEXITED(st))
		printf("no clean exit: exited with %d without running exit handlers (_exit)\n", WEXITSTATUS(st));
	else if (root && p->hdr.pid == root && t->session_has_status && WIFSIGNALED(st))
		printf("no clean exit: killed by signal %d (%s)\n", WTERMSIG(st), signal_desc(WTERMSIG(st)));
	else
		printf("no clean exit: a signal, a crash or an exit system call made by hand (the trace cannot "
		       "tell which)\n");
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		VIEW_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct view_opts o = { 0 };
	struct view v;
	int opt;
	char dur[32];

	opterr = 0;
	while ((opt = fnt_getopt_long(argc, argv, ":d:h", longopts, NULL)) != -1) {
		if (view_opt(&o, opt, optarg))
			continue;
		switch (opt) {
		case 'h': fputs(info_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	view_open(&v, &o);
	pager_start(&o);
	struct trace *t = v.trace;
	struct trace_totals tt;
	trace_totals(t, &tt);
	uint64_t events = tt.events, disk = tt.disk_bytes, size = tt.file_bytes, lost = tt.lost;
	printf("trace: %s\n", o.dir);
	if (t->session_command)
		printf("command: %s\n", safe(t->session_command));
	if (t->session_options && *t->session_options)
		printf("record options: %s\n", safe(t->session_options));
	if (t->n_procs)
		print_time("started: ", t->t0_real);
	else if (t->session_start_real)
		print_time("started: ", t->session_start_real);
	/* its zero is the start of the recording (as --since, -r and
	 * --fields elapsed count), before the program's first call */
	uint64_t first = UINT64_MAX;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++)
			if (t->procs[i].threads[k].events && t->procs[i].threads[k].first_ns < first)
				first = t->procs[i].threads[k].first_ns;
	format_duration(dur, sizeof(dur), t->end_ns);
	if (first != UINT64_MAX && first <= t->end_ns) {
		char at[32];
		format_duration(at, sizeof(at), first);
		printf("duration: %s (from the start of the recording to its last event; the first event at %s)\n",
		       dur + strspn(dur, " "), at + strspn(at, " "));
	} else {
		printf("duration: %s (from the start of the recording to its last event)\n", dur + strspn(dur, " "));
	}
	if (t->session_has_status) {
		int st = t->session_status;
		if (WIFEXITED(st))
			printf("status: exited with %d\n", WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			printf("status: killed by signal %d (%s)\n", WTERMSIG(st), signal_desc(WTERMSIG(st)));
	} else if (t->session_command) {
		printf("status: unknown (fntrace record itself did not finish)\n");
	}
	if (t->n_procs) {
		const struct trace_process *p = &t->procs[0];
		if (p->hdr.clock == FNT_CLOCK_TSC)
			printf("clock: tsc, %.3f GHz, calibrated against CLOCK_MONOTONIC\n", 1.0 / p->scale);
		else
			printf("clock: CLOCK_MONOTONIC (%s)\n", clock_why(t));
	}
	printf("processes: %zu\n", t->n_procs);
	printf("events: %" PRIu64 "\n", events);
	printf("bytes: %" PRIu64 " in files, %" PRIu64 " on disk", size, disk);
	if (events)
		printf(" (%.2f bytes per event on disk)", (double)disk / (double)events);
	printf("\n");
	if (t->unwritten_lost)     /* (the warnings above say why) */
		printf("lost: %" PRIu64 ", and the events of %" PRIu64 " chunk%s never written\n", lost,
		       t->unwritten_lost, t->unwritten_lost == 1 ? "" : "s");
	else if (t->tail_unknown)
		printf("lost: %" PRIu64 ", and maybe the last events of %zu process%s\n", lost, t->tail_unknown,
		       t->tail_unknown == 1 ? "" : "es");
	else
		printf("lost: %" PRIu64 "\n", lost);
	print_untraced_total(t);
	{
		struct patch_totals pt;
		patch_totals(t, &pt);
		if (pt.modules)
			printf("patched (-P): %" PRIu64 " function%s, %" PRIu64 " skipped%s\n", pt.patched,
			       pt.patched == 1 ? "" : "s", pt.skipped, pt.skipped ? " (see below)" : "");
	}
	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i].filters) {
			print_filters(t->procs[i].filters);
			break;
		}

	uint32_t root = root_pid(t);
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		char bid[80];
		printf("\nprocess %u (parent %u)%s: %s\n", p->hdr.pid, p->hdr.ppid,
		       p->after_exec ? " after exec" : "", safe(p->hdr.exe));
		printf("  file: %s\n", safe(p->file));
		printf("  argv:");
		for (int k = 0; k < p->argc; k++)
			printf(" %s", safe(p->argv[k]));
		printf("%s\n", p->hdr.cmdline_truncated ? " ..." : "");
		print_ended(t, p, root);
		if (fnt_header_lost(&p->hdr) - p->hdr.reserved[FNT_RES_LOST_NOCLOCK] || p->hdr.lost_meta) {
			char kinds[600];
			lost_kinds_text(&p->hdr, 1, kinds, sizeof(kinds));
			printf("  lost: %s, %" PRIu64 " module records\n", kinds, p->hdr.lost_meta);
		}
		if (p->hdr.reserved[FNT_RES_LOST_NOCLOCK])
			printf("  lost: %" PRIu64 " in threads that entered seccomp strict mode (no clock, no "
			       "memory: they stopped recording)\n", p->hdr.reserved[FNT_RES_LOST_NOCLOCK]);
		print_untraced(p);
		print_patches(t, p);
		if (p->hdr.flags & FNT_FLAG_RING)
			printf("  flight recorder: the last %" PRIu64 " chunks of %u bytes of each thread\n",
			       p->hdr.reserved[FNT_RES_RING_CHUNKS], p->hdr.chunk_size);
		if (p->hdr.flags & FNT_FLAG_SNAPSHOT) {
			uint64_t ticks = p->hdr.reserved[FNT_RES_SNAP_TICKS];
			double ns = ((double)(int64_t)(ticks - p->tick0)) * p->scale + (double)p->off;
			format_duration(dur, sizeof(dur), ns < 0 ? 0 : (uint64_t)ns);
			printf("  snapshot: taken at +%s while the process ran\n", dur + strspn(dur, " "));
		}
		if (p->damaged_bytes || p->damaged_chunks || p->missing_chunks)
			printf("  damage: %" PRIu64 " bytes skipped, %" PRIu64 " bad chunks, %" PRIu64
			       " missing chunks\n", p->damaged_bytes, p->damaged_chunks, p->missing_chunks);
		printf("  threads: %zu\n", p->n_threads);
		printf("  %8s  %-16s  %12s  %s\n", "tid", "name", "events", "state");
		for (size_t k = 0; k < p->n_threads; k++) {
			struct trace_thread *th = &p->threads[k];
			printf("  %8u  %-16s  %12" PRIu64 "  %s", th->tid, safe(th->name), th->events,
			       th->ended ? "exited" : "running at the end");
			if (th->lost)
				printf(", %" PRIu64 " lost", th->lost);
			if (th->first_seq && (p->hdr.flags & FNT_FLAG_RING)) {
				format_duration(dur, sizeof(dur), th->history_ns);
				printf(", history from +%s", dur + strspn(dur, " "));
			}
			printf("\n");
		}
		printf("  modules: %zu\n", p->n_modules);
		for (size_t k = 0; k < p->n_modules; k++) {
			struct trace_module *m = &p->modules[k];
			struct trace_file_ref *f = &t->files[m->file];
			hex(f->build_id, f->build_id_len, bid);
			printf("    %#014" PRIx64 " %9" PRIu64 "  %-40s  %s  ", m->lo, m->hi - m->lo, safe(f->path),
			       *bid ? bid : "(no build-id)");
			if (m->at_start)
				printf("loaded at start");
			else {
				format_duration(dur, sizeof(dur), m->load_ns);
				printf("loaded at +%s", dur + strspn(dur, " "));
			}
			if (m->unload_ns != UINT64_MAX) {
				format_duration(dur, sizeof(dur), m->unload_ns);
				printf(", unloaded at +%s", dur + strspn(dur, " "));
			}
			printf("\n");
		}
	}
	list_snapshots(o.dir ? o.dir : "fntrace.data");
	fflush(stdout);
	int ret = 0;
	if (!trace_has_function_events(t)) {
		view_no_events_hint(&v);
	}
	view_report_problems(&v);
	view_close(&v);
	return ret;
}
