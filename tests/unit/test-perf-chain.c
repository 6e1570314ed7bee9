/* perf-chain: reading perf script's text and putting the real callers back
 * into a sample's callchain (tool/perf-chain.h), on hand-made samples in
 * the shapes perf 6.1 prints: frame pointers (-g: a swapped frame for every
 * traced call, as fnt_traced_return+0x1) and DWARF (--call-graph dwarf: the
 * walk ends at the first, as fnt_traced_return+0x0). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include "tool/perf-chain.h"

#define T1 "\t           1ae4f fnt_traced_return+0x1 (/usr/lib/libfntrace.so)"
#define T0 "\t           1ae4e fnt_traced_return+0x0 (/usr/lib/libfntrace.so)"

static struct pc_frame frames[16];

/* a sample from its frame lines (NULL-ended) */
static struct pc_sample sample(const char *const *lines)
{
	struct pc_sample s = { .tid = 1, .frames = frames };
	for (; *lines; lines++)
		pc_parse_frame(*lines, strlen(*lines), &frames[s.n_frames++]);
	pc_scan(&s);
	return s;
}

static void header(const char *line, int ok, uint32_t tid, uint64_t ns)
{
	uint32_t t = 0;
	uint64_t n = 0;
	int r = pc_parse_header(line, strlen(line), &t, &n);
	CHECK(r == (ok ? 0 : -1), "'%s': %d", line, r);
	if (ok)
		CHECK(t == tid && n == ns, "'%s': tid %u ns %llu", line, t, (unsigned long long)n);
}

static void rewrite(const char *what, const char *const *lines, const struct pc_call *calls, size_t n, int want_r,
		    const char *want)
{
	struct pc_sample s = sample(lines);
	char *out = NULL;
	size_t len = 0;
	int r = pc_rewrite(&s, calls, n, &out, &len);
	CHECK(r == want_r, "%s: returned %d, not %d", what, r, want_r);
	if (r == 1 && want)
		CHECK(!strcmp(out, want), "%s: got\n%s\nwanted\n%s", what, out, want);
	free(out);
}

/* main -> outer -> middle -> leaf, outermost first, callers from the trace's entries */
static const struct pc_call chain[] = {
	{ "main", "/w/prog", 0x1080, 0x13, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0, 0 },
	{ "outer", "/w/prog", 0x12c0, 0x20, "main", "/w/prog", 0x1080, 0, 0, 0, 0, NULL, 0, 0, 0 },
	{ "middle", "/w/prog", 0x12a0, 0x20, "outer", "/w/prog", 0x12c0, 0, 0, 0, 0, NULL, 0, 0, 0 },
	{ "leaf", "/w/prog", 0x1280, 0x20, "middle", "/w/prog", 0x12a0, 0, 0, 0, 0, NULL, 0, 0, 0 },
};

/* the key of a state: its calls, outermost first */
static uint64_t key_of(const struct pc_call *calls, size_t n)
{
	uint64_t k = 0;
	for (size_t i = 0; i < n; i++)
		k = pc_key(k, (uint64_t)(uintptr_t)calls[i].name);
	return k;
}

/* a hand-made sample of perf script text: header, then frames */
static struct pc_sample text_sample(const char *text)
{
	static char buf[1024];
	struct pc_sample s = { .frames = frames };
	char *line, *save = NULL;
	snprintf(buf, sizeof(buf), "%s", text);
	line = strtok_r(buf, "\n", &save);
	CHECK(pc_parse_header(line, strlen(line), &s.tid, &s.ns) == 0, "header '%s'", line);
	while ((line = strtok_r(NULL, "\n", &save)))
		pc_parse_frame(line, strlen(line), &frames[s.n_frames++]);
	pc_scan(&s);
	return s;
}

/* A sample is tried on the states of its thread near its time: spin called
 * from outer (state A, [main outer spin]) ends, outer calls middle, which
 * calls spin (state B, [main outer middle spin]).  The chain alone (three
 * swapped frames: the tail-called middle shares outer's slot) fits both. */
static void matching(void)
{
	const struct pc_call a[] = {
		{ "main", "/w/prog", 0x1080, 0x13, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0, 0 },
		{ "outer", "/w/prog", 0x12c0, 0x20, "main", "/w/prog", 0x1080, 0, 0, 0, 0, NULL, 0, 0, 0 },
		{ "spin", "/w/prog", 0x11f0, 0x80, "outer", "/w/prog", 0x12c0, 0, 0, 0, 0, NULL, 0, 0, 0 },
	};
	const struct pc_call b[] = {
		{ "main", "/w/prog", 0x1080, 0x13, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0, 0 },
		{ "outer", "/w/prog", 0x12c0, 0x20, "main", "/w/prog", 0x1080, 0, 0, 0, 0, NULL, 0, 0, 0 },
		{ "middle", "/w/prog", 0x12a0, 0x20, "outer", "/w/prog", 0x12c0, 0, 0, 0, 0, NULL, 0, 0, 0 },
		{ "spin", "/w/prog", 0x11f0, 0x80, "middle", "/w/prog", 0x12a0, 0, 0, 0, 0, NULL, 0, 0, 0 },
	};
	const char *sample_text = "prog 4242 100.000500: 250000 cpu-clock:\n"
				  "\t            1237 spin+0x47 (/w/prog)\n" T1 "\n" T1 "\n" T1 "\n";
	const char *from_b = "\t            1237 spin+0x47 (/w/prog)\n"
			     "\t            12a0 middle+0x0 (/w/prog)\n"
			     "\t            12c0 outer+0x0 (/w/prog)\n"
			     "\t            1080 main+0x0 (/w/prog)\n";
	const char *from_a = "\t            1237 spin+0x47 (/w/prog)\n"
			     "\t            12c0 outer+0x0 (/w/prog)\n"
			     "\t            1080 main+0x0 (/w/prog)\n";
	uint64_t t = 100000500000ull;
	struct pc_sample s = text_sample(sample_text);
	CHECK(s.tid == 4242 && s.ns == t && s.n_tramp == 3, "sample %u %llu", s.tid, (unsigned long long)s.ns);

	/* A ended 10 us before the sample, B holds at its time: B stands */
	struct pc_match m = { 0 };
	CHECK(pc_match_state(&m, &s, a, 3, key_of(a, 3), t - 400000, t - 10000) == 0, "state a");
	CHECK(m.text && !strcmp(m.text, from_a) && m.dist == 10000, "the first state that fits: %s", m.text);
	pc_match_state(&m, &s, b, 4, key_of(b, 4), t - 10000, t + 90000);
	CHECK(m.text && !strcmp(m.text, from_b) && !m.conflict && m.dist == 0, "the state at its time: %s", m.text);
	pc_match_state(&m, &s, a, 3, key_of(a, 3), t + 90000, t + 95000);
	CHECK(!strcmp(m.text, from_b) && !m.conflict, "a state after it does not undo that");
	free(m.text);

	/* the sample falls between them, in [main outer] (no fit): A 1 us
	 * before, B 2 us after give other frames: ambiguous */
	memset(&m, 0, sizeof(m));
	pc_match_state(&m, &s, a, 3, key_of(a, 3), t - 400000, t - 1000);
	pc_match_state(&m, &s, a, 2, key_of(a, 2), t - 1000, t + 2000);
	pc_match_state(&m, &s, b, 4, key_of(b, 4), t + 2000, t + 90000);
	CHECK(m.text && m.conflict, "two states near the sample that differ");
	free(m.text);

	/* the same stack before and after a call that does not fit (a library
	 * call made from spin and returned): no doubt */
	memset(&m, 0, sizeof(m));
	const struct pc_call a_lib[] = { a[0], a[1], a[2],
		{ "memcpy", "/w/prog", 0x4010, 0, "spin", "/w/prog", 0x11f0, 0, 0, 0, 0, NULL, 0, 0, 0 } };
	pc_match_state(&m, &s, a, 3, key_of(a, 3), t - 400000, t - 1000);
	pc_match_state(&m, &s, a_lib, 4, key_of(a_lib, 4), t - 1000, t + 2000);
	pc_match_state(&m, &s, a, 3, key_of(a, 3), t + 2000, t + 90000);
	CHECK(m.text && !m.conflict && !strcmp(m.text, from_a) && m.dist == 1000, "one stack on both sides");
	free(m.text);

	/* no swapped frame: nothing to match */
	memset(&m, 0, sizeof(m));
	struct pc_sample plain = text_sample("prog 4242 100.000500: 250000 cpu-clock:\n"
					     "\t            1237 spin+0x47 (/w/prog)\n");
	pc_match_state(&m, &plain, a, 3, key_of(a, 3), t - 1000, t + 1000);
	CHECK(!m.text, "a sample without swapped frames");
}

/* a library call, known by its GOT slot (no size): the function its slot
 * led to decides by address (an IFUNC's variant, an alias of the name), and
 * a sample's own address anywhere in that library when it is the head
 * (perf-inject's DWARF samples); else only a name that matches */
static void library_calls(void)
{
	const struct pc_call lib[] = {
		{ "main", "/w/prog", 0x1080, 0x13, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0, 0 },
		{ "memcpy", "/w/prog", 0x4010, 0, "main", "/w/prog", 0x1080, 0, 0, 0, 0, "/lib/libc.so.6", 0x1a0e80, 0x5c0, 0 },
	};
	struct pc_call named[2] = { lib[0], lib[1] };
	size_t j;
	named[1].target_dso = NULL;
	named[1].target_size = 0;
	struct pc_sample s = sample((const char *[]){ "	          1a0f12 __memmove_avx_unaligned_erms+0x92 "
						      "(/lib/libc.so.6)", T1, NULL });
	CHECK(pc_fit(&s, lib, 2, &j) == 1 && j == 0, "the IFUNC's variant, by address");
	CHECK(pc_fit(&s, named, 2, &j) == 0, "not by name");
	s = sample((const char *[]){ "	          1a1480 __memmove_avx512_unaligned+0x0 (/lib/libc.so.6)", T1, NULL });
	CHECK(pc_fit(&s, lib, 2, &j) == 0, "past its end: another function");
	s.head_is_pc = 1;
	CHECK(pc_fit(&s, lib, 2, &j) == 1, "the sample's address: in the library the call went to");
	s = sample((const char *[]){ "	            1090 main+0x10 (/w/prog)", T1, NULL });
	s.head_is_pc = 1;
	CHECK(pc_fit(&s, lib, 2, &j) == 0, "not in the calling module");
	s = sample((const char *[]){ "	           77993 __GI__IO_puts+0x13 (inlined)", T1, NULL });
	named[1].name = "puts";
	CHECK(pc_fit(&s, named, 2, &j) == 0, "an alias's name is not puts");
	named[1].target_dso = "/lib/libc.so.6";
	named[1].target_start = 0x77980;
	named[1].target_size = 0x1f5;
	CHECK(pc_fit(&s, named, 2, &j) == 1, "but its address is puts's target");

	/* a DWARF sample taken in code run untraced (printf's strlen in main):
	 * the innermost call's, when the caller says the module is untraced */
	s = sample((const char *[]){ "\t          167ad8 __strlen_evex+0x18 (/lib/libc.so.6)", T1, NULL });
	CHECK(pc_fit(&s, chain, 4, &j) == 0, "not in leaf");
	s.head_is_pc = 1;
	CHECK(pc_fit(&s, chain, 4, &j) == 0, "nor as the sample's address alone");
	s.frames[0].untraced = 1;
	CHECK(pc_fit(&s, chain, 4, &j) == 1 && j == 0, "but in an untraced module: leaf's");
	s.head_is_pc = 0;
	CHECK(pc_fit(&s, chain, 4, &j) == 0, "only as the sample's address (an unwound frame is the callee's)");
}

int main(void)
{
	header("prog 26397 10235.101246:     250000 cpu-clock: ", 1, 26397, 10235101246000ull);
	header("prog 26397/26398 [001] 10235.101246123: 250000 cpu-clock:", 1, 26398, 10235101246123ull);
	header("V8 WorkerThread 25607 4794564.109216: cycles:", 1, 25607, 4794564109216000ull);
	/* a thread name that looks like "tid time:" itself: the last pair is the real one */
	header("w 77 1.5: x 4242 100.000001:     250000 cpu-clock: ", 1, 4242, 100000001000ull);
	header("w 77 1.5: x 4241/4242 [001] 100.000001: 250000 cpu-clock:", 1, 4242, 100000001000ull);
	header("77 1.5: 4242 100.000001: 250000 cpu-clock:", 1, 4242, 100000001000ull);
	header("         prog  9345 10663.280306:     250000 cpu-clock: ", 0, 0, 0);   /* indented: a frame */
	header("\t            1237 spin+0x47 (/w/prog)", 0, 0, 0);
	header("prog 12 cpu-clock:", 0, 0, 0);

	struct pc_frame f;
	const char *l = "\t            1237 spin+0x47 (/w/prog)";
	pc_parse_frame(l, strlen(l), &f);
	CHECK(f.parsed && f.addr == 0x1237 && f.sym_len == 4 && !memcmp(f.sym, "spin", 4) && f.off == 0x47 &&
	      f.dso_len == 7 && !memcmp(f.dso, "/w/prog", 7) && !f.tramp, "frame line");
	l = "\t    7fb94588f000 [unknown] (/tmp/perf-26397.map)";
	pc_parse_frame(l, strlen(l), &f);
	CHECK(f.parsed && !f.has_off && f.sym_len == 9 && !f.tramp, "[unknown] frame");
	/* a module path with " (" in it */
	l = "\t            1237 spin+0x47 (/opt/App (x86)/prog (2))";
	pc_parse_frame(l, strlen(l), &f);
	CHECK(f.parsed && f.sym_len == 4 && !memcmp(f.sym, "spin", 4) && f.off == 0x47 && f.dso_len == 23 &&
	      !memcmp(f.dso, "/opt/App (x86)/prog (2)", 23), "frame line, ' (' in the path: '%.*s' '%.*s'",
	      (int)f.sym_len, f.sym, (int)f.dso_len, f.dso);
	l = "\t            1237 [unknown] ([unknown])";
	pc_parse_frame(l, strlen(l), &f);
	CHECK(f.parsed && f.sym_len == 9 && f.dso_len == 9 && !memcmp(f.dso, "[unknown]", 9), "[unknown] module");
	l = "\t            1237 operator() (x) (/w/prog)";       /* no path: the last one */
	pc_parse_frame(l, strlen(l), &f);
	CHECK(f.parsed && f.dso_len == 7 && f.sym_len == 14, "' (' in the symbol");
	pc_parse_frame(T1, strlen(T1), &f);
	CHECK(f.tramp, "fnt_traced_return+0x1 is a swapped return address");
	pc_parse_frame(T0, strlen(T0), &f);
	CHECK(f.tramp, "fnt_traced_return+0x0 is a swapped return address");
	l = "\t           1aece fnt_traced_return+0x80 (/usr/lib/libfntrace.so)";
	pc_parse_frame(l, strlen(l), &f);
	CHECK(!f.tramp, "a pc inside the trampoline is not");
	l = "\t           1ae4f fnt_return_trampoline+0x0 (/usr/lib/libfntrace.so)";
	pc_parse_frame(l, strlen(l), &f);
	CHECK(f.tramp, "fnt_return_trampoline+0x0 is");

	/* frame pointers: one swapped frame per traced call; main's caller is not known: the chain ends */
	rewrite("frame pointers", (const char *[]){ "\t            1295 leaf+0x15 (/w/prog)", T1, T1, T1, T1, NULL },
		chain, 4, 1,
		"\t            1295 leaf+0x15 (/w/prog)\n"
		"\t            12a0 middle+0x0 (/w/prog)\n"
		"\t            12c0 outer+0x0 (/w/prog)\n"
		"\t            1080 main+0x0 (/w/prog)\n");
	/* DWARF: the walk ended at the first; the rest comes from the trace */
	rewrite("dwarf", (const char *[]){ "\t            1295 leaf+0x15 (/w/prog)", T0, NULL }, chain, 4, 1,
		"\t            1295 leaf+0x15 (/w/prog)\n"
		"\t            12a0 middle+0x0 (/w/prog)\n"
		"\t            12c0 outer+0x0 (/w/prog)\n"
		"\t            1080 main+0x0 (/w/prog)\n");
	/* the frame inside the first swapped one decides: by name, or by address within the function */
	rewrite("not in the innermost call", (const char *[]){ "\t            1237 spin+0x47 (/w/prog)", T0, NULL },
		chain, 4, 0, NULL);
	rewrite("by address", (const char *[]){ "\t            1295 [unknown] (/w/prog)", T0, NULL }, chain, 4, 1, NULL);
	rewrite("another module", (const char *[]){ "\t            1295 leaf+0x15 (/w/other)", T0, NULL }, chain, 4, 0,
		NULL);
	rewrite("more swapped frames than calls",
		(const char *[]){ "\t            1295 leaf+0x15 (/w/prog)", T1, T1, T1, T1, T1, NULL }, chain, 4, 0, NULL);
	rewrite("no swapped frame", (const char *[]){ "\t            1295 leaf+0x15 (/w/prog)", NULL }, chain, 4, -1, NULL);
	rewrite("nothing inside it", (const char *[]){ T1, T1, NULL }, chain, 4, 0, NULL);
	/* a sample taken inside the trampoline's own code, where DWARF
	 * unwinding stops at once: perf 6.1 names the pc by the line table's
	 * function (fnt_return_trampoline) while its symbol lookup met
	 * fnt_traced_return first, so the frame reads "(inlined)" with an
	 * offset from fnt_traced_return's start.  No swapped frame: it stays as
	 * it is and is not one of the samples to match (seen once in make check) */
	rewrite("pc in the trampoline, dwarf", (const char *[]){
			"\t           268a1 fnt_return_trampoline+0x1b (inlined)", NULL }, chain, 4, -1, NULL);
	rewrite("pc in the trampoline, frame pointers", (const char *[]){
			"\t           268a1 fnt_traced_return+0x1b (/usr/lib/libfntrace.so)", T1, T1, NULL }, chain, 4, 0, NULL);

	/* frames after the last swapped one stay, and a caller not known in
	 * the middle of the chain is perf's "[unknown]"; a recorded call site
	 * gives the caller's own address and offset */
	const struct pc_call two[] = {
		{ "main", "/w/prog", 0x1080, 0x13, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0, 0 },
		{ "cb", "/w/prog", 0x1400, 0x10, "msort", "/lib/libc.so.6", 0x3f2a0, 0x40, 0, 0, 0, NULL, 0, 0, 0 },
	};
	rewrite("trailing frames", (const char *[]){ "\t            1404 cb+0x4 (/w/prog)", T1,
						      "\t           3f400 qsort+0x10 (/lib/libc.so.6)", T1,
						      "\t           29d8f __libc_start_call_main+0x7f (/lib/libc.so.6)",
						      NULL },
		two, 2, 1,
		"\t            1404 cb+0x4 (/w/prog)\n"
		"\t           3f2a0 msort+0x40 (/lib/libc.so.6)\n"
		"\t           3f400 qsort+0x10 (/lib/libc.so.6)\n"
		"\t               0 [unknown] ([unknown])\n"
		"\t           29d8f __libc_start_call_main+0x7f (/lib/libc.so.6)\n");

	/* a walk by frame pointers skipped frames (libc's clock_gettime keeps
	 * none): the library call is innermost, its slot and spin's were
	 * skipped, and spin is put back; the library call is known by its GOT
	 * slot (no function size) and matched by name without the version */
	const struct pc_call lib[] = {
		{ "main", "/w/prog", 0x1080, 0x13, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0, 0 },
		{ "outer", "/w/prog", 0x12c0, 0x20, "main", "/w/prog", 0x1080, 0, 0, 0, 0, NULL, 0, 0, 0 },
		{ "spin", "/w/prog", 0x11f0, 0x80, "outer", "/w/prog", 0x12c0, 0, 0, 0, 0, NULL, 0, 0, 0 },
		{ "clock_gettime", "/w/prog", 0x4000, 0, "spin", "/w/prog", 0x11f0, 0, 0, 0, 0, NULL, 0, 0, 0 },
	};
	rewrite("skipped frames", (const char *[]){ "\t             b46 __vdso_clock_gettime+0x56 ([vdso])",
						     "\t           cf439 clock_gettime@@GLIBC_2.17+0x19 (/lib/libc.so.6)",
						     T1, T1, T1, NULL },
		lib, 4, 1,
		"\t             b46 __vdso_clock_gettime+0x56 ([vdso])\n"
		"\t           cf439 clock_gettime@@GLIBC_2.17+0x19 (/lib/libc.so.6)\n"
		"\t            11f0 spin+0x0 (/w/prog)\n"
		"\t            12c0 outer+0x0 (/w/prog)\n"
		"\t            1080 main+0x0 (/w/prog)\n");
	/* DWARF names the library function by its internal alias, inlined (no module) */
	rewrite("library alias", (const char *[]){ "\t             b46 __vdso_clock_gettime+0x56 ([vdso])",
						    "\t           cf438 __GI___clock_gettime+0x18 (inlined)", T0, NULL },
		lib, 4, 1,
		"\t             b46 __vdso_clock_gettime+0x56 ([vdso])\n"
		"\t           cf438 __GI___clock_gettime+0x18 (inlined)\n"
		"\t            11f0 spin+0x0 (/w/prog)\n"
		"\t            12c0 outer+0x0 (/w/prog)\n"
		"\t            1080 main+0x0 (/w/prog)\n");
	rewrite("another library function", (const char *[]){ "\t           3f400 qsort+0x10 (/lib/libc.so.6)", T0, NULL },
		lib, 4, 0, NULL);
	/* frame pointers past the outermost traced call (trailing frames) with
	 * frames skipped below the first swapped one: the last swapped frame
	 * is main's, the first spin's, and the library call's frame is put back;
	 * main's caller, not known, stands as perf's [unknown] */
	rewrite("trailing, skipped frames", (const char *[]){
			"\t           cf439 clock_gettime@@GLIBC_2.17+0x19 (/lib/libc.so.6)", T1, T1, T1,
			"\t           29d8f __libc_start_call_main+0x7f (/lib/libc.so.6)", NULL },
		lib, 4, 1,
		"\t           cf439 clock_gettime@@GLIBC_2.17+0x19 (/lib/libc.so.6)\n"
		"\t            11f0 spin+0x0 (/w/prog)\n"
		"\t            12c0 outer+0x0 (/w/prog)\n"
		"\t            1080 main+0x0 (/w/prog)\n"
		"\t               0 [unknown] ([unknown])\n"
		"\t           29d8f __libc_start_call_main+0x7f (/lib/libc.so.6)\n");

	matching();
	library_calls();
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
