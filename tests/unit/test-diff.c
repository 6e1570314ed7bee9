/* the --diff columns of report and graph (tool/report-diff.c): "new" and
 * "gone" are decided by the calls, not by the times */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include "tool/tool.h"

/* tool/main.c's, for the pager, which this test never starts */
void tool_exec_prepare(void)
{
}

/* diff_columns' line for these figures, as printed to stdout */
static char *columns(uint64_t total, uint64_t base_total, uint64_t calls, uint64_t base_calls)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = stdout, *mem = open_memstream(&text, &len);
	if (!mem)
		abort();
	stdout = mem;
	diff_columns(total, base_total, total, base_total, calls, base_calls);
	fclose(mem);
	stdout = out;
	return text;
}

/* the time and self columns both show `expect`, and neither "new" nor
 * "gone" unless it is that; when `expect` is "", no "new", "gone" or "%"
 * at all */
static void want(const char *what, uint64_t total, uint64_t base_total, uint64_t calls, uint64_t base_calls,
		 const char *expect)
{
	char *line = columns(total, base_total, calls, base_calls);
	int n = 0;
	for (const char *p = line; (p = strstr(p, *expect ? expect : "%")); p++)
		n++;
	int other = (strcmp(expect, "new") && strstr(line, "new")) || (strcmp(expect, "gone") && strstr(line, "gone"));
	if (*expect)
		CHECK(n == 2 && !other, "%s: '%s' twice wanted in '%s'", what, expect, line);
	else
		CHECK(n == 0 && !strstr(line, "new") && !strstr(line, "gone"), "%s: no change wanted in '%s'",
		      what, line);
	free(line);
}

int main(void)
{
	/* means, rounded to the nearest ns (report's, the TUI's and html's
	 * avg): 10373 ns over 100 calls reads 0.104 us, not 0.103 */
	CHECK(mean_ns(10373, 100) == 104 && mean_ns(10349, 100) == 103 && mean_ns(15, 10) == 2 &&
	      mean_ns(12, 5) == 2 && mean_ns(13, 5) == 3 && mean_ns(0, 0) == 0 && mean_ns(7, 1) == 7 &&
	      mean_ns(UINT64_MAX, 2) == UINT64_MAX / 2 + 1, "mean_ns");
	/* counts and sizes at a glance, without "1000.0 K" at a unit's end */
	{
		static const struct { uint64_t n; const char *count, *bytes; } h[] = {
			{ 999, "999", "999 B" }, { 9999, "9999", "10.0 KB" }, { 10000, "10.0 K", "10.0 KB" },
			{ 999949, "999.9 K", "999.9 KB" }, { 999950, "1.0 M", "1.0 MB" },
			{ 4025900, "4.0 M", "4.0 MB" }, { 999949999, "999.9 M", "999.9 MB" },
			{ 999950000, "1.0 G", "1.00 GB" },
		};
		for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
			char c[32], b[32];
			human_count(c, sizeof(c), h[i].n);
			human_bytes(b, sizeof(b), h[i].n);
			CHECK(!strcmp(c, h[i].count) && !strcmp(b, h[i].bytes), "%llu: '%s' '%s'",
			      (unsigned long long)h[i].n, c, b);
		}
	}
	/* a path of this trace only, whose calls the trace has at 0 ns (a
	 * clock that went back between entry and exit is clamped) */
	want("new path at 0 ns", 0, 0, 3, 0, "new");
	want("new path", 1500, 0, 3, 0, "new");
	want("gone path at 0 ns", 0, 0, 0, 2, "gone");
	want("gone path", 0, 900, 0, 2, "gone");
	/* in both traces: a change, never "new" or "gone" */
	want("0 ns in the base", 700, 0, 1, 1, "");
	want("0 ns in this trace", 0, 700, 1, 1, "-100.0%");
	want("slower", 1500, 1000, 4, 4, "+50.0%");
	want("same", 1000, 1000, 4, 5, "+0.0%");
	want("both 0 ns", 0, 0, 2, 2, "");
	/* the percent column is 8 wide: the decimal goes from +10000%, an
	 * exponent comes from +1000000% */
	want("72 times", 7211, 100, 1, 1, "+7111.0%");
	want("101 times", 10101, 100, 1, 1, "+10001%");
	want("a million times", 100000000, 100, 1, 1, "+1.0e8%");
	want("25001 times", 2500100, 100, 1, 1, "+2.5e6%");
	want("a decrease", 100, 7211, 1, 1, "-98.6%");
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
