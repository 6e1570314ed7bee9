/*
 * report-diff.c - `fntrace report --diff BASE`: two profiles side by side,
 * to find what got slower or was called more often between two runs, as
 * uftrace's report --diff does.  Functions are matched by signature (and
 * source file: view_match_key) and module
 * (not by address), so a rebuilt binary matches its old self: a library by
 * its file name, the program by being the program (prog-O0 matches
 * prog-O2); a function present in one trace only shows zeros for the
 * other.  Rows are
 * sorted by the largest change (absolute) of the sort key, total time by
 * default.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tool/outbuf.h"
#include "tool/tool.h"

struct drow {
	const char *name, *module;
	const struct prof_row *now, *base;
};

static const struct prof_row zero;
static int diff_key;

static int64_t key_change(const struct drow *r)
{
	const struct prof_row *a = r->now ? r->now : &zero, *b = r->base ? r->base : &zero;
	switch (diff_key) {
	case 's': return (int64_t)(a->self - b->self);
	case 'c': return (int64_t)(a->calls - b->calls);
	case 'a': return (int64_t)(a->avg - b->avg);
	default: return (int64_t)(a->total - b->total);
	}
}

static int cmp_drow(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	if (diff_key != 'n') {
		int64_t ka = llabs(key_change(a)), kb = llabs(key_change(b));
		if (ka != kb)
			return ka > kb ? -1 : 1;
	}
	int c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->module, b->module);
}

int diff_module_cmp(const char *module_a, int program_a, const char *module_b, int program_b)
{
	if (program_a || program_b)
		return !program_a - !program_b;     /* the program first */
	return strcmp(module_a, module_b);
}

/* the signature: the match key up to its first tab (view_match_key) */
static int cmp_sig(const char *a, const char *b)
{
	size_t la = strcspn(a, "\t"), lb = strcspn(b, "\t");
	int c = memcmp(a, b, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

/* by signature (each overload matches its own), then the module: what
 * matches across builds (prog-O0 against prog-O2, gcc's against clang's) */
static int cmp_sigmod(const struct prof_row *a, const struct prof_row *b)
{
	int c = cmp_sig(a->key, b->key);
	return c ? c : diff_module_cmp(a->module, a->in_program, b->module, b->in_program);
}

/* then by constructor kind and source file, which tell apart the functions
 * of one signature in one module (static functions of one name in two
 * files, a class's destructors of each kind) */
static int cmp_prof(const void *x, const void *y)
{
	const struct prof_row *a = x, *b = y;
	int c = cmp_sigmod(a, b);
	return c ? c : strcmp(a->key, b->key);
}

/* whether rows[first..n) already holds p (this trace's row when now) */
static int matched(const struct drow *rows, size_t first, size_t n, const struct prof_row *p, int now)
{
	for (size_t j = first; j < n; j++)
		if ((now ? rows[j].now : rows[j].base) == p)
			return 1;
	return 0;
}

static void add_row(struct drow *rows, size_t *n, const struct prof_row *now, const struct prof_row *base)
{
	struct drow *r = &rows[(*n)++];
	r->now = now;
	r->base = base;
	r->name = now ? now->name : base->name;
	r->module = now ? now->module : base->module;   /* matched: this trace's name of its program */
}

/* "new" (no calls in the base), "gone" (none in this trace), else the
 * change of time: "+12.3%", or "" when the base's time is zero.  By the
 * calls, not the times: a call can last 0 ns as the trace has it (a
 * clock that went back between its entry and its exit is clamped), and a
 * new path of such calls showed "".  At most 8 characters, the width of
 * the column: a decrease is at most -100.0%, an increase from +10000%
 * on drops the decimal, and from +1000000% on is written with an
 * exponent, "+2.5e6%" */
static void diff_percent(char *buf, size_t len, uint64_t now, uint64_t base, uint64_t calls, uint64_t base_calls)
{
	if (!base_calls && calls)
		snprintf(buf, len, "new");
	else if (!calls && base_calls)
		snprintf(buf, len, "gone");
	else if (!base)
		buf[0] = '\0';
	else {
		double pct = 100.0 * ((double)now - (double)base) / (double)base;
		if (pct < 9999.95)
			snprintf(buf, len, "%+.1f%%", pct);
		else if (pct < 999999.5)
			snprintf(buf, len, "%+.0f%%", pct);
		else {
			int e = 0;
			while (pct >= 9.95)      /* a mantissa that rounds below 10 */
				pct /= 10.0, e++;
			snprintf(buf, len, "+%.1fe%d%%", pct, e);
		}
	}
}

/* a change of time, its sign always shown, right-aligned in the 11
 * columns of the Diff column: "  +0.480 ms", "-306.660 us"; no sign when
 * nothing changed.  A duration fills 10 columns, and one of 100 or more
 * has no padding left for a sign: the sign gets a column of its own */
static void diff_duration(char *buf, size_t len, uint64_t now, uint64_t base)
{
	char d[32];
	uint64_t diff = now >= base ? now - base : base - now;
	format_duration(d, sizeof(d), diff);
	const char *v = d + strspn(d, " ");
	const char *sign = !diff ? "" : now > base ? "+" : "-";
	int pad = 11 - (int)(strlen(sign) + strlen(v));
	snprintf(buf, len, "%*s%s%s", pad > 0 ? pad : 0, "", sign, v);
}

void diff_columns(uint64_t total, uint64_t base_total, uint64_t self, uint64_t base_self, uint64_t calls,
		  uint64_t base_calls)
{
	char t[32], td[40], tp[400], s[32], sd[40], sp[400], cd[32];
	format_duration_color(t, sizeof(t), total);
	diff_duration(td, sizeof(td), total, base_total);
	diff_percent(tp, sizeof(tp), total, base_total, calls, base_calls);
	format_duration_color(s, sizeof(s), self);
	diff_duration(sd, sizeof(sd), self, base_self);
	diff_percent(sp, sizeof(sp), self, base_self, calls, base_calls);
	if (calls == base_calls)
		snprintf(cd, sizeof(cd), "0");
	else
		snprintf(cd, sizeof(cd), "%+" PRId64, (int64_t)(calls - base_calls));
	printf("  %s  %s  %8s  %s  %s  %8s  %9" PRIu64 "  %7s  ", t, td, tp, s, sd, sp, calls, cd);
}

void report_diff(struct prof_row *now, size_t n_now, struct prof_row *base, size_t n_base, int sort_key,
		 const char *format, const char *now_dir, const char *base_dir)
{
	struct drow *rows = xcalloc(n_now + n_base + 1, sizeof(*rows));
	size_t n = 0, i = 0, k = 0;

	qsort(now, n_now, sizeof(*now), cmp_prof);
	qsort(base, n_base, sizeof(*base), cmp_prof);
	/* merge the two sorted lists: a function matches the other trace's of
	 * its signature and module; where several share them on either side,
	 * the one of its kind and file */
	while (i < n_now || k < n_base) {
		int c = i == n_now ? 1 : k == n_base ? -1 : cmp_sigmod(&now[i], &base[k]);
		if (c) {
			if (c < 0)
				add_row(rows, &n, &now[i++], NULL);
			else
				add_row(rows, &n, NULL, &base[k++]);
			continue;
		}
		size_t ie = i + 1, ke = k + 1;
		while (ie < n_now && !cmp_sigmod(&now[ie], &now[i]))
			ie++;
		while (ke < n_base && !cmp_sigmod(&base[ke], &base[k]))
			ke++;
		if (ie - i == 1 && ke - k == 1) {
			add_row(rows, &n, &now[i++], &base[k++]);
			continue;
		}
		/* those of one kind and file first; the others in order (a
		 * destructor gcc names by its complete variant and clang by its
		 * base one, which are one function) */
		size_t gi = i, gk = k, first = n;
		while (i < ie && k < ke) {
			int d = strcmp(now[i].key, base[k].key);
			if (!d)
				add_row(rows, &n, &now[i], &base[k]);
			i += d <= 0;
			k += d >= 0;
		}
		size_t a = gi, b = gk;
		for (;;) {
			while (a < ie && matched(rows, first, n, &now[a], 1))
				a++;
			while (b < ke && matched(rows, first, n, &base[b], 0))
				b++;
			if (a == ie && b == ke)
				break;
			add_row(rows, &n, a < ie ? &now[a++] : NULL, b < ke ? &base[b++] : NULL);
		}
		i = ie;
		k = ke;
	}
	diff_key = sort_key == 'n' || sort_key == 's' || sort_key == 'c' || sort_key == 'a' ? sort_key : 't';
	qsort(rows, n, sizeof(*rows), cmp_drow);

	if (!strcmp(format, "csv"))
		printf("function,calls,base_calls,total_ns,base_total_ns,self_ns,base_self_ns,avg_ns,base_avg_ns,module\n");
	else if (!strcmp(format, "json")) {
		printf("{\"trace\": ");
		json_fput(stdout, now_dir, 0);
		printf(", \"base\": ");
		json_fput(stdout, base_dir, 0);
		printf(",\n  \"functions\": [");
	} else {
		printf("# %s against the base %s\n", now_dir, base_dir);
		fputs(DIFF_HEADER, stdout);
	}
	for (size_t j = 0; j < n; j++) {
		const struct prof_row *a = rows[j].now ? rows[j].now : &zero;
		const struct prof_row *b = rows[j].base ? rows[j].base : &zero;
		if (!strcmp(format, "csv")) {
			csv_fput(stdout, rows[j].name);
			printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			       ",%" PRIu64 ",", a->calls, b->calls, a->total, b->total, a->self, b->self, a->avg, b->avg);
			csv_fput(stdout, rows[j].module);
			putchar('\n');
		} else if (!strcmp(format, "json")) {
			printf("%s\n    {\"function\": ", j ? "," : "");
			json_fput(stdout, rows[j].name, 0);
			printf(", \"module\": ");
			json_fput(stdout, rows[j].module, 0);
			printf(", \"calls\": %" PRIu64 ", \"base_calls\": %" PRIu64 ", \"total_ns\": %" PRIu64
			       ", \"base_total_ns\": %" PRIu64 ", \"self_ns\": %" PRIu64 ", \"base_self_ns\": %" PRIu64
			       ", \"avg_ns\": %" PRIu64 ", \"base_avg_ns\": %" PRIu64 "}",
			       a->calls, b->calls, a->total, b->total, a->self, b->self, a->avg, b->avg);
		} else {
			diff_columns(a->total, b->total, a->self, b->self, a->calls, b->calls);
			text_fput(rows[j].name, stdout);
			putchar('\n');
		}
	}
	if (!strcmp(format, "json"))
		printf("\n  ]\n}\n");
	free(rows);
}
