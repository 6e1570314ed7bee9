/* argument payloads as text (tool/args.c, format/argspec.h): every format,
 * names, enums, and payloads that are short or malformed never read past
 * their length */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "format/argspec.h"
#include "tests/unit/check.h"
#include "tool/tool.h"

static size_t put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return 8;
}

/* version: the file's format (3 and before: every fixed-size item takes
 * 8 bytes; 4: its size) */
static void fmt_v(const char *spec, uint32_t version, const uint8_t *pl, size_t len, int is_ret, const char *want)
{
	char out[512];
	args_format(spec, version, pl, len, is_ret, out, sizeof(out));
	CHECK(!strcmp(out, want), "'%s' (v%u, %zu bytes, ret %d) gave '%s', not '%s'", spec, version, len, is_ret, out,
	      want);
}

static void fmt(const char *spec, const uint8_t *pl, size_t len, int is_ret, const char *want)
{
	fmt_v(spec, 3, pl, len, is_ret, want);
}

int main(void)
{
	uint8_t p[256];
	size_t n;
	double d = 2.5;
	float f = -0.1f;
	uint64_t bits;

	/* spec parsing */
	struct fnt_argspec s = { 0 };
	CHECK(fnt_argspec_parse("arg1,x=arg2/u8,fparg1/f32,retval/s", strlen("arg1,x=arg2/u8,fparg1/f32,retval/s"), &s) == 0 && s.n == 4, "parse");
	CHECK(s.item[1].fmt == FNT_FMT_UINT && s.item[1].size == 1 && !strcmp(s.item[1].name, "x"), "u8 named");
	CHECK(s.item[2].src == FNT_SRC_FP && s.item[2].size == 4, "f32");
	struct fnt_argspec bad = { 0 };
	CHECK(fnt_argspec_parse("arg1/q", 6, &bad) == 1, "unknown format");
	CHECK(fnt_argspec_parse("arg0", 4, &bad) == 1, "arg0");
	memset(&bad, 0, sizeof(bad));
	CHECK(fnt_argspec_parse("arg1,arg2/f64", strlen("arg1,arg2/f64"), &bad) == 2, "float in an integer register");
	memset(&bad, 0, sizeof(bad));
	CHECK(fnt_argspec_parse("fparg9", 6, &bad) == 1, "fparg9");
	memset(&bad, 0, sizeof(bad));
	CHECK(fnt_argspec_parse("a,b,c,d,e,f,g,h,i", strlen("a,b,c,d,e,f,g,h,i"), &bad) == 1, "not an item");
	memset(&bad, 0, sizeof(bad));
	{
		const char *many = "arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1";
		CHECK(fnt_argspec_parse(many, strlen(many), &bad) == FNT_ARGS_MAX + 1, "17 items: one past the limit");
	}
	memset(&bad, 0, sizeof(bad));
	CHECK(fnt_argspec_parse("c=arg1/e32{RED=0|GREEN=5},retval/e32{RED=0}", strlen("c=arg1/e32{RED=0|GREEN=5},retval/e32{RED=0}"), &bad) == 0 && bad.n == 2,
	      "enums with '=' inside braces");

	/* integers: width and sign come from the spec, not the register */
	n = put64(p, 0xffffffffu) + put64(p + 8, 0xdeadbeefcafef00dull);
	fmt("arg1,arg2/x32", p, n, 0, "-1, 0xcafef00d");
	fmt("arg1/u,arg2/i8", p, n, 0, "4294967295, 13");
	fmt("arg1/i64,arg2/x", p, n, 0, "4294967295, 0xdeadbeefcafef00d");
	fmt("a=arg1/i16,b=arg2/u16", p, n, 0, "a=-1, b=61453");
	/* format version 4: each fixed-size item takes its size, in order,
	 * whatever the register held above it */
	{
		uint8_t q[64];
		size_t m = 0;
		uint32_t u32 = 0xffffffffu, c32 = 0xcafef00du;
		memcpy(q + m, &u32, 4), m += 4;
		memcpy(q + m, &c32, 4), m += 4;
		fmt_v("arg1,arg2/x32", 4, q, m, 0, "-1, 0xcafef00d");
		fmt_v("arg1,arg2/x32", 4, q, m - 1, 0, "-1, ?");       /* short: never read past */
		fmt_v("arg1,arg2/x32", 4, q, 3, 0, "?, ?");
		m = 0;
		q[m++] = 0x80;                                        /* i8 */
		q[m++] = 0x34, q[m++] = 0x12;                         /* u16 */
		m += put64(q + m, 0xdeadbeefcafef00dull);             /* x64 */
		m += put64(q + m, 0x1000);                            /* p */
		q[m++] = 'z';                                         /* c */
		q[m++] = 1;                                           /* b */
		fmt_v("arg1/i8,arg2/u16,arg3/x,arg4/p,arg5/c,arg6/b", 4, q, m, 0,
		      "-128, 4660, 0xdeadbeefcafef00d, 0x1000, 'z', true");
		m = 0;
		memcpy(q + m, &d, 8), m += 8;
		memcpy(q + m, &f, 4), m += 4;
		fmt_v("fparg1,fparg2/f32", 4, q, m, 0, "2.5, -0.1");
		/* a string between integers, and the return side alone */
		m = 0;
		q[m++] = 7, q[m++] = 0;                               /* i16 7 */
		q[m++] = FNT_STR_OK, q[m++] = 2, q[m++] = 'h', q[m++] = 'i';
		q[m++] = 0xfe, q[m++] = 0xff, q[m++] = 0xff, q[m++] = 0xff;   /* i32 -2 */
		fmt_v("arg1/i16,arg2/s,arg3,retval/u8", 4, q, m, 0, "7, \"hi\", -2");
		q[0] = 200;
		fmt_v("arg1/i16,arg2/s,arg3,retval/u8", 4, q, 1, 1, "200");
		/* one text read as version 3 and then as version 4 (parsed specs
		 * are cached): each by its own layout */
		m = put64(q, 5) + put64(q + 8, 6);
		fmt_v("arg1,arg2", 3, q, m, 0, "5, 6");
		memcpy(q + 4, q + 8, 4);
		fmt_v("arg1,arg2", 4, q, 8, 0, "5, 6");
		fmt_v("arg1,arg2", 3, q, 8, 0, "5, ?");
	}
	/* pointers, chars, bools */
	n = put64(p, 0) + put64(p + 8, 0x1000) + put64(p + 16, '\n') + put64(p + 24, 0x100);
	fmt("arg1/p,arg2/p,arg3/c,arg4/b", p, n, 0, "NULL, 0x1000, '\\n', false");
	/* floats */
	memcpy(&bits, &d, 8);
	n = put64(p, bits);
	bits = 0;
	memcpy(&bits, &f, 4);
	n += put64(p + 8, bits | 0xffffffff00000000ull);   /* the upper half of the xmm is not the float's */
	fmt("fparg1,fparg2/f32", p, n, 0, "2.5, -0.1");
	/* strings: ok, NULL, bad, cut, escapes */
	n = 0;
	p[n++] = FNT_STR_OK, p[n++] = 5, memcpy(p + n, "a\"b\tc", 5), n += 5;
	p[n++] = FNT_STR_NULL;
	p[n++] = FNT_STR_BAD, n += put64(p + n, 0x10);
	p[n++] = FNT_STR_CUT, p[n++] = 2, memcpy(p + n, "xy", 2), n += 2;
	fmt("arg1/s,arg2/s,arg3/s,arg4/s", p, n, 0, "\"a\\\"b\\tc\", NULL, <bad 0x10>, \"xy\"...");
	/* short payloads: '?' from the first item that does not fit, never past len */
	fmt("arg1/s,arg2/s,arg3/s,arg4/s", p, 3, 0, "?, ?, ?, ?");
	fmt("arg1/s,arg2/s,arg3/s,arg4/s", p, 8, 0, "\"a\\\"b\\tc\", NULL, ?, ?");
	fmt("arg1/s,arg2/s,arg3/s,arg4/s", p, 12, 0, "\"a\\\"b\\tc\", NULL, ?, ?");
	n = put64(p, 7);
	fmt("arg1,arg2", p, 12, 0, "7, ?");
	fmt("arg1,arg2", NULL, 0, 0, "?, ?");
	p[0] = 9;   /* not a string status */
	fmt("arg1/s", p, 8, 0, "?");
	p[0] = FNT_STR_OK, p[1] = 200;   /* a length past the payload */
	fmt("arg1/s", p, 8, 0, "?");
	/* structs take no payload; retval items only on the return side */
	n = put64(p, 3);
	fmt("arg1/S,arg2,retval", p, n, 0, "{...}, 3");
	fmt("arg1/S,retval/S", NULL, 0, 1, "{...}");
	n = put64(p, 6);
	fmt("arg1,arg2,retval", p, n, 1, "6");
	/* enums by name, unknown values as numbers */
	n = put64(p, 5) + put64(p + 8, 9);
	fmt("c=arg1/e32{RED=0|GREEN=5},d=arg2/e32{RED=0|GREEN=5}", p, n, 0, "c=GREEN, d=9");
	/* a spec that does not parse gives nothing */
	fmt("arg1/zz", p, n, 0, "");
	/* parsed specs are cached by address: after args_forget() (a trace
	 * closed), a text at an address that held another one is parsed again */
	{
		char text[16];
		uint64_t v = (uint64_t)-2;
		strcpy(text, "arg1/x64");
		fmt(text, (const uint8_t *)&v, 8, 0, "0xfffffffffffffffe");
		fmt(text, (const uint8_t *)&v, 8, 0, "0xfffffffffffffffe");
		args_forget();
		strcpy(text, "arg1/i64");
		fmt(text, (const uint8_t *)&v, 8, 0, "-2");
		args_forget();
		strcpy(text, "arg1/u64");
		fmt(text, (const uint8_t *)&v, 8, 0, "18446744073709551614");
		args_forget();
	}
	/* every digit count, at each power of ten and on both sides of it,
	 * signed and unsigned, as printf writes them (the count comes from the
	 * bit length, which is one short just below a power of ten) */
	{
		char want[32];
		uint64_t pw = 1;
		for (int k = 0; k <= 19; k++, pw *= 10) {
			uint64_t vs[3] = { pw - 1, pw, pw + 1 };
			for (int j = 0; j < 3; j++) {
				uint64_t v = vs[j];
				snprintf(want, sizeof(want), "%" PRIu64, v);
				fmt("arg1/u64", (const uint8_t *)&v, 8, 0, want);
				snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
				fmt("arg1/i64", (const uint8_t *)&v, 8, 0, want);
				uint64_t neg = 0 - v;
				snprintf(want, sizeof(want), "%" PRId64, (int64_t)neg);
				fmt("arg1/i64", (const uint8_t *)&neg, 8, 0, want);
			}
		}
		uint64_t top = UINT64_MAX, low = (uint64_t)INT64_MIN;
		fmt("arg1/u64", (const uint8_t *)&top, 8, 0, "18446744073709551615");
		fmt("arg1/i64", (const uint8_t *)&low, 8, 0, "-9223372036854775808");
		for (int b = 0; b < 64; b++) {   /* each bit length, at its ends */
			uint64_t lo = 1ull << b, hi = lo | (lo - 1);
			snprintf(want, sizeof(want), "%" PRIu64, lo);
			fmt("arg1/u64", (const uint8_t *)&lo, 8, 0, want);
			snprintf(want, sizeof(want), "%" PRIu64, hi);
			fmt("arg1/u64", (const uint8_t *)&hi, 8, 0, want);
		}
	}
	/* a side of plain integers is written by a fast path when the buffer
	 * has room for every item (56 bytes each); with a byte less it goes
	 * through put_item: both give the same text, for every width, sign,
	 * name and value's length */
	{
		static const char *const specs[] = {
			"arg1,arg2,retval", "n=arg1/i8,m=arg2/u16,arg3/x32,retval/i64",
			"a_rather_long_argument_name_xyz=arg1/i64,b=arg2/u64,c=arg3/x64,retval/u8",
			"arg1/x8,arg2/i16,arg3/u32,arg4/x16,arg5/i32,arg6/u8,retval/x64",
		};
		uint64_t x = 0x9e3779b97f4a7c15ull;
		for (uint32_t version = 3; version <= 4; version++)
		for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
			struct fnt_argspec ps = { 0 };
			CHECK(!fnt_argspec_parse(specs[k], strlen(specs[k]), &ps), "parse %s", specs[k]);
			for (int r = 0; r < 2; r++) {
				size_t items = 0;
				for (unsigned i = 0; i < ps.n; i++)
					items += (ps.item[i].src == FNT_SRC_RET) == r;
				for (int t = 0; t < 2000; t++) {
					uint8_t pl[8 * FNT_ARGS_MAX + 8];
					char fast[1024], slow[1024], want[1024];
					size_t len = 0, wl = 0;
					for (unsigned i = 0; i < ps.n; i++) {
						const struct fnt_arg_item *it = &ps.item[i];
						if ((it->src == FNT_SRC_RET) != r)
							continue;
						x ^= x << 13, x ^= x >> 7, x ^= x << 17;
						uint64_t v = x >> (t % 64);          /* every length of number */
						put64(pl + len, v);
						len += fnt_argspec_item_width(it, version);
						/* what printf makes of the item's low bytes */
						unsigned b = it->size * 8u;
						uint64_t m = b >= 64 ? UINT64_MAX : (1ull << b) - 1;
						wl += (size_t)snprintf(want + wl, sizeof(want) - wl, "%s%s%s", wl ? ", " : "",
								       r ? "" : it->name, it->name[0] && !r ? "=" : "");
						if (it->fmt == FNT_FMT_HEX)
							wl += (size_t)snprintf(want + wl, sizeof(want) - wl, "0x%" PRIx64, v & m);
						else if (it->fmt == FNT_FMT_UINT)
							wl += (size_t)snprintf(want + wl, sizeof(want) - wl, "%" PRIu64, v & m);
						else
							wl += (size_t)snprintf(want + wl, sizeof(want) - wl, "%" PRId64,
									       (int64_t)(v << (64 - b)) >> (64 - b));
					}
					size_t nf = args_format(specs[k], version, pl, len, r, fast, sizeof(fast));
					size_t ns = args_format(specs[k], version, pl, len, r, slow, 56 * items);
					CHECK(nf == ns && !strcmp(fast, slow), "%s v%u ret %d: '%s' fast, '%s' through put_item",
					      specs[k], version, r, fast, slow);
					CHECK(!strcmp(fast, want), "%s v%u ret %d: '%s', not '%s'", specs[k], version, r, fast,
					      want);
					/* a byte short: the last item is '?', never read past the end */
					if (len) {
						nf = args_format(specs[k], version, pl, len - 1, r, fast, sizeof(fast));
						CHECK(nf >= 1 && fast[nf - 1] == '?', "%s v%u ret %d, a byte short: '%s'",
						      specs[k], version, r, fast);
					}
				}
			}
		}
	}

	/* random values of every length against printf, through the fast
	 * path (both paths share the digit writer, so comparing them is not
	 * enough): 8 digits at a time, the 32-bit rest, widths cut and
	 * sign-extended */
	{
		const char *spec = "arg1/u64,arg2/i64,arg3/x64,arg4/i32,arg5/u16,arg6/i8";
		uint64_t x = 0x2545f4914f6cdd1dull;
		for (int t = 0; t < 20000; t++) {
			uint64_t v[6];
			char want[256], out[1024];
			for (int i = 0; i < 6; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				v[i] = x >> (t % 64);
			}
			snprintf(want, sizeof(want), "%" PRIu64 ", %" PRId64 ", 0x%" PRIx64 ", %d, %u, %d", v[0],
				 (int64_t)v[1], v[2], (int32_t)(uint32_t)v[3], (unsigned)(uint16_t)v[4],
				 (int)(int8_t)(uint8_t)v[5]);
			args_format(spec, 3, (const uint8_t *)v, sizeof(v), 0, out, sizeof(out));
			CHECK(!strcmp(out, want), "%s: '%s', not '%s'", spec, out, want);
			/* a named argument, and the return side (never named) */
			snprintf(want, sizeof(want), "n=%" PRId64, (int64_t)v[0]);
			args_format("n=arg1/i64,retval/i16", 3, (const uint8_t *)v, 8, 0, out, sizeof(out));
			CHECK(!strcmp(out, want), "n=arg1/i64: '%s', not '%s'", out, want);
			snprintf(want, sizeof(want), "%d", (int)(int16_t)(uint16_t)v[1]);
			args_format("n=arg1/i64,retval/i16", 3, (const uint8_t *)&v[1], 8, 1, out, sizeof(out));
			CHECK(!strcmp(out, want), "retval/i16: '%s', not '%s'", out, want);
		}
	}

	/* integers cut at the end of a small buffer, never past it */
	{
		char out[5];
		uint64_t v = (uint64_t)-123456;
		memset(out, 'z', sizeof(out));
		CHECK(args_format("arg1/i64", 3, (const uint8_t *)&v, 8, 0, out, 4) == 3 && !strcmp(out, "-12") &&
		      out[4] == 'z', "cut integer '%s'", out);
		CHECK(args_format("arg1/x64", 3, (const uint8_t *)&v, 8, 0, out, 4) == 3 && !strcmp(out, "0xf") &&
		      out[4] == 'z', "cut hex '%s'", out);
	}

	/* std::string (/t) and std::string_view (/v): the string payload,
	 * NUL bytes included; a view takes two words, never split between the
	 * registers and the stack */
	memset(&bad, 0, sizeof(bad));
	CHECK(fnt_argspec_parse("arg1/t,arg2/v,arg7/v,retval/v", strlen("arg1/t,arg2/v,arg7/v,retval/v"), &bad) == 0 &&
	      bad.item[0].fmt == FNT_FMT_STDSTRING && bad.item[1].fmt == FNT_FMT_STRVIEW, "/t /v");
	memset(&bad, 0, sizeof(bad));
	CHECK(fnt_argspec_parse("arg6/v", 6, &bad) == 1 && fnt_argspec_parse("arg16/v", 7, &bad) == 1 &&
	      fnt_argspec_parse("arg1/t8", 7, &bad) == 1 && fnt_argspec_parse("fparg1/v", 8, &bad) == 1, "bad /t /v");
	n = 0;
	p[n++] = FNT_STR_OK, p[n++] = 3, memcpy(p + n, "a\0b", 3), n += 3;
	p[n++] = FNT_STR_NULL;
	p[n++] = FNT_STR_BAD, n += put64(p + n, 0x8);
	fmt("s=arg1/t,v=arg2/v,w=arg4/v", p, n, 0, "s=\"a\\x00b\", v=NULL, w=<bad 0x8>");
	fmt("s=arg1/t,v=arg2/v,w=arg4/v", p, 6, 0, "s=\"a\\x00b\", v=NULL, w=?");
	/* long double (/f80): argN on the stack or st(0); 16 bytes, the 11th
	 * says whether there was a value */
	memset(&bad, 0, sizeof(bad));
	CHECK(fnt_argspec_parse("arg7/f80,retval/f80", strlen("arg7/f80,retval/f80"), &bad) == 0 &&
	      bad.item[0].fmt == FNT_FMT_LDOUBLE && bad.item[1].fmt == FNT_FMT_LDOUBLE, "/f80");
	memset(&bad, 0, sizeof(bad));
	CHECK(fnt_argspec_parse("arg6/f80", 8, &bad) == 1 && fnt_argspec_parse("fparg1/f80", 10, &bad) == 1 &&
	      fnt_argspec_parse("arg7/f81", 8, &bad) == 1, "bad /f80");
	{
		long double ld = 0.1L;
		memset(p, 0, 32);
		memcpy(p, &ld, 10);
		p[10] = 1;
		fmt("x=arg7/f80,y=arg9/f80", p, 32, 0, "x=0.1, y=?");
		fmt("x=arg7/f80,y=arg9/f80", p, 20, 0, "x=0.1, y=?");
		ld = -1e600L;
		memcpy(p, &ld, 10);
		fmt("retval/f80", p, 16, 1, "-1e+600");
	}
	/* pointers without a view to name them: hex */
	n = put64(p, 0x55550000);
	fmt("arg1/p", p, n, 0, "0x55550000");
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
