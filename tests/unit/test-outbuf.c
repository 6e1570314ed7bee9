/*
 * test-outbuf.c - the exporters' hand-written formatting: JSON escaping
 * (every input must give valid JSON text, bad UTF-8 included), microseconds
 * with three decimals, decimal numbers, and the buffer's flushing of
 * strings longer than itself.
 */
#include <stdlib.h>
#include <string.h>
#include "tool/outbuf.h"
#include "check.h"

static void esc(const char *in, size_t n, const char *want)
{
	char out[512];
	char *e = json_escape(out, in, n);
	*e = 0;
	CHECK(!strcmp(out, want), "json_escape(%s) gave '%s', want '%s'", want, out, want);
}

static void us3(uint64_t ns, const char *want)
{
	char out[64];
	*fmt_us3(out, ns) = 0;
	CHECK(!strcmp(out, want), "fmt_us3(%llu) gave '%s', want '%s'", (unsigned long long)ns, out, want);
}

int main(void)
{
	/* plain text, C++ names with quotes and backslashes, control bytes */
	esc("main", 4, "main");
	esc("operator\"\" _q", 13, "operator\\\"\\\" _q");
	esc("a\\b", 3, "a\\\\b");
	esc("t\tn\nr\rz\x01\x1f", 9, "t\\tn\\nr\\u000dz\\u0001\\u001f");
	esc("nul\0x", 5, "nul\\u0000x");
	esc("tmpl<char const*>", 17, "tmpl<char const*>");
	/* valid UTF-8 stays as it is: 2, 3 and 4 bytes */
	esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* invalid: a lone continuation, a cut sequence, overlong, surrogate,
	 * beyond U+10FFFF, 0xff: one U+FFFD per bad byte, the rest kept */
	esc("\x80x", 2, "\\ufffdx");
	esc("a\xe2\x82", 3, "a\\ufffd\\ufffd");
	esc("\xc0\xaf", 2, "\\ufffd\\ufffd");
	esc("\xe0\x80\xaf", 3, "\\ufffd\\ufffd\\ufffd");
	esc("\xed\xa0\x80", 3, "\\ufffd\\ufffd\\ufffd");
	esc("\xf4\x90\x80\x80", 4, "\\ufffd\\ufffd\\ufffd\\ufffd");
	esc("\xff", 1, "\\ufffd");
	esc("\xc3\xa9\xc3", 3, "\xc3\xa9\\ufffd");

	us3(0, "0.000");
	us3(7, "0.007");
	us3(1234567, "1234.567");
	us3(1000, "1.000");
	us3(UINT64_MAX, "18446744073709551.615");
	{
		char b[32];
		*fmt_u64(b, 0) = 0;
		CHECK(!strcmp(b, "0"), "fmt_u64(0) = %s", b);
		*fmt_u64(b, UINT64_MAX) = 0;
		CHECK(!strcmp(b, "18446744073709551615"), "fmt_u64(max) = %s", b);
	}

	/* a string three times the buffer goes out whole and in order */
	{
		size_t n = 3 * OUTBUF_CAP + 17;
		char *big = malloc(n), *got = NULL;
		size_t got_len = 0;
		FILE *mem = open_memstream(&got, &got_len);
		struct outbuf ob = { .out = mem, .buf = malloc(OUTBUF_CAP) };
		for (size_t i = 0; i < n; i++)
			big[i] = (char)('a' + i % 26);
		outbuf_puts(&ob, "<");
		outbuf_put(&ob, big, n);
		outbuf_puts(&ob, ">");
		outbuf_flush(&ob);
		fclose(mem);
		CHECK(!ob.failed && got_len == n + 2, "length %zu, want %zu", got_len, n + 2);
		CHECK(got_len == n + 2 && got[0] == '<' && !memcmp(got + 1, big, n) && got[n + 1] == '>',
		      "content differs");
		free(big);
		free(got);
		free(ob.buf);
	}
	/* utf8_clean: valid UTF-8 unchanged, each bad byte one U+FFFD, a
	 * limit never cuts a character */
	{
		static const struct { const char *in, *want; } cases[] = {
			{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
			{ "\xe9t\xe9.txt", "\xef\xbf\xbdt\xef\xbf\xbd.txt" },
			{ "te\xe9", "te\xef\xbf\xbd" },
			{ "\xc3", "\xef\xbf\xbd" },                    /* cut sequence */
			{ "\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd" },   /* two bytes of none */
			{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },   /* overlong */
			{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },   /* surrogate */
		};
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			char out[64];
			size_t n = strlen(cases[i].in);
			char *e = utf8_clean(out, cases[i].in, n, sizeof(out));
			*e = 0;
			CHECK(!strcmp(out, cases[i].want), "utf8_clean(case %zu) = '%s'", i, out);
			CHECK(utf8_clean_len(cases[i].in, n) == strlen(cases[i].want), "utf8_clean_len(case %zu)", i);
		}
		char out[8];
		char *e = utf8_clean(out, "ab\xe2\x82\xac\xff", 7, 4);
		CHECK(e - out == 2 && !memcmp(out, "ab", 2), "utf8_clean cut a character: %d bytes", (int)(e - out));
	}
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
