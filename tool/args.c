/*
 * args.c - formats the raw argument / return-value payloads the runtime
 * captured (format/argspec.h, doc/format.md "Argument payloads") as C-like
 * text: 12, -5, 0x7ffd..., &table+0x8, "world", NULL, <bad 0x10>, 2.5, 'x',
 * true, {...}.
 * The spec text comes from the trace (ARGSPEC meta records), never from the
 * command line, so a trace formats the same wherever it is read.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/argspec.h"
#include "tool/tool.h"

struct sbuf {
	char *p;
	size_t len, cap;
};

static inline void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap)
		n = b->cap > b->len + 1 ? b->cap - b->len - 1 : 0;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		sb_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Integers without printf: replay formats millions of them.  The digits
 * are written in place, right to left, after counting them. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* the two digits of d < 100 at q */
static inline void pair_at(char *q, unsigned d)
{
	memcpy(q, digit_pairs + 2 * d, 2);
}

/* the eight digits of lo < 10^8 at q */
static inline void eight_at(char *q, uint32_t lo)
{
	uint32_t hi4 = lo / 10000, lo4 = lo % 10000;
	pair_at(q, hi4 / 100);
	pair_at(q + 2, hi4 % 100);
	pair_at(q + 4, lo4 / 100);
	pair_at(q + 6, lo4 % 100);
}

/* v in decimal (after a '-' when neg) at q, which has room for 21 bytes;
 * returns the end.  Values below 100 (most loop counters and sizes) are
 * written at once; longer ones right to left, eight digits at a time in
 * 32-bit halves so that the divisions do not wait on each other. */
static inline __attribute__((always_inline)) char *dec_at(char *q, uint64_t v, int neg)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
		1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	if (neg)
		*q++ = '-';
	if (v < 100) {
		if (v < 10) {
			*q = (char)('0' + v);
			return q + 1;
		}
		pair_at(q, (unsigned)v);
		return q + 2;
	}
	/* the digits from the bit length: 1233 / 4096 is just below log10(2),
	 * close enough that t is the count or one less */
	unsigned t = ((64u - (unsigned)__builtin_clzll(v)) * 1233u) >> 12;
	char *e = q + t + (unsigned)(v >= pow10[t]);
	q = e;
	while (v > UINT32_MAX) {
		uint32_t lo = (uint32_t)(v % 100000000);
		v /= 100000000;
		q -= 8;
		eight_at(q, lo);
	}
	/* below 2^32 (most values): 32-bit divisions, cheaper than 64-bit */
	uint32_t w = (uint32_t)v;
	if (w >= 100000000) {
		q -= 8;
		eight_at(q, w % 100000000);
		w /= 100000000;
	}
	while (w >= 100) {
		q -= 2;
		pair_at(q, w % 100);
		w /= 100;
	}
	if (w >= 10)
		pair_at(q - 2, w);
	else
		q[-1] = (char)('0' + w);
	return e;
}

static void sb_put_u64(struct sbuf *b, uint64_t v, int neg)
{
	char tmp[24];
	if (b->len + 22 <= b->cap) {
		b->len = (size_t)(dec_at(b->p + b->len, v, neg) - b->p);
		b->p[b->len] = 0;
	} else {
		sb_put(b, tmp, (size_t)(dec_at(tmp, v, neg) - tmp));     /* little room: cut */
	}
}

/* the low 64 - shift bits of v as a signed value (shift 0: all 64) */
static inline int64_t sign_extend(uint64_t v, unsigned shift)
{
	return (int64_t)(v << shift) >> shift;
}

static void sb_put_i64(struct sbuf *b, int64_t v)
{
	sb_put_u64(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

/* v as 0x... at q, which has room for 18 bytes; returns the end */
static inline char *hex_at(char *q, uint64_t v)
{
	unsigned n = v ? (67u - (unsigned)__builtin_clzll(v)) / 4 : 1;
	char *e = q + 2 + n;
	q[0] = '0';
	q[1] = 'x';
	for (char *d = e; d > q + 2; v >>= 4)
		*--d = "0123456789abcdef"[v & 15];
	return e;
}

static void sb_put_hex(struct sbuf *b, uint64_t v)
{
	char tmp[24];
	sb_put(b, tmp, (size_t)(hex_at(tmp, v) - tmp));
}

static void put_escaped_char(struct sbuf *b, unsigned char c, char quote)
{
	switch (c) {
	case '\n': sb_put(b, "\\n", 2); return;
	case '\t': sb_put(b, "\\t", 2); return;
	case '\r': sb_put(b, "\\r", 2); return;
	case '\\': sb_put(b, "\\\\", 2); return;
	}
	if (c == (unsigned char)quote) {
		char e[2] = { '\\', quote };
		sb_put(b, e, 2);
	} else if (c < 0x20 || c >= 0x7f) {
		sb_printf(b, "\\x%02x", c);
	} else {
		sb_put(b, (const char *)&c, 1);
	}
}

/* where pointers are named (args_symbols, args_where) */
static struct view *ptr_view;
static int (*ptr_name)(struct view *v, const struct trace_process *p, uint64_t ns, uint64_t addr, char *out,
		       size_t cap);
static const struct trace_process *ptr_proc;
static uint64_t ptr_ns;

void args_symbols(struct view *v, int (*name)(struct view *v, const struct trace_process *p, uint64_t ns,
						 uint64_t addr, char *out, size_t cap))
{
	ptr_view = v;
	ptr_name = name;
	ptr_proc = NULL;
}

void args_where(const struct trace_process *p, uint64_t ns)
{
	ptr_proc = p;
	ptr_ns = ns;
}

/* shortest text that reads back as the same double */
static void put_double(struct sbuf *b, double d)
{
	char tmp[64];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d || prec == 17)
			break;
	}
	sb_put(b, tmp, strlen(tmp));
}

static void put_float(struct sbuf *b, float f)
{
	char tmp[64];
	for (int prec = 1; prec <= 9; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, (double)f);
		if (strtof(tmp, NULL) == f || prec == 9)
			break;
	}
	sb_put(b, tmp, strlen(tmp));
}

/* a long double (x87 80-bit), the shortest text that reads back as it */
static void put_long_double(struct sbuf *b, const uint8_t *raw)
{
	char tmp[80];
	long double d = 0;
	memcpy(&d, raw, 10);
	for (int prec = 1; prec <= 21; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*Lg", prec, d);
		if (strtold(tmp, NULL) == d || prec == 21)
			break;
	}
	sb_put(b, tmp, strlen(tmp));
}

/* an enum value by name, from the item's text "...{A=0|B=5}" */
/* the enumerator whose constant has the value's bits: compilers write an
 * unsigned 2-byte enum's 0xffff as 65535 or as -1, and the value is read as
 * its `mask` low bits, so both sides are compared masked */
static int put_enum(struct sbuf *b, const char *text, size_t len, uint64_t v, uint64_t mask)
{
	const char *brace = memchr(text, '{', len), *end = text + len - 1;
	if (!brace)
		return -1;
	for (const char *p = brace + 1; p < end;) {
		const char *bar = memchr(p, '|', (size_t)(end - p)), *e = bar ? bar : end;
		const char *eq = memchr(p, '=', (size_t)(e - p));
		if (eq && ((eq[1] == '-' ? (uint64_t)strtoll(eq + 1, NULL, 10) : strtoull(eq + 1, NULL, 10)) & mask) ==
			  (v & mask)) {
			sb_put(b, p, (size_t)(eq - p));
			return 0;
		}
		p = e + 1;
	}
	return -1;
}

/* a fixed-size value of w bytes (1, 2, 4 or 8) at p */
static inline uint64_t load_width(const uint8_t *p, unsigned w)
{
	uint64_t v;
	uint32_t v4;
	uint16_t v2;
	switch (w) {
	case 8: memcpy(&v, p, 8); return v;
	case 4: memcpy(&v4, p, 4); return v4;
	case 2: memcpy(&v2, p, 2); return v2;
	default: return p[0];
	}
}

/* one item at *pp (advanced), of a trace of format `version`; returns -1
 * when the payload is short */
static int put_item(struct sbuf *b, const struct fnt_arg_item *it, const char *text, size_t tlen,
		   const uint8_t **pp, const uint8_t *end, uint32_t version)
{
	const uint8_t *p = *pp;
	uint64_t v;
	if (it->fmt == FNT_FMT_STRUCT) {
		sb_put(b, "{...}", 5);
		return 0;
	}
	if (it->fmt == FNT_FMT_LDOUBLE) {
		/* 10 bytes of value, then 1 when there was one (st(0) empty: none) */
		if (end - p < 16)
			return -1;
		if (p[10])
			put_long_double(b, p);
		else
			sb_put(b, "?", 1);
		*pp = p + 16;
		return 0;
	}
	if (it->fmt == FNT_FMT_STR || it->fmt == FNT_FMT_STDSTRING || it->fmt == FNT_FMT_STRVIEW) {
		if (p >= end)
			return -1;
		uint8_t st = *p++;
		if (st == FNT_STR_NULL) {
			sb_put(b, "NULL", 4);
		} else if (st == FNT_STR_BAD) {
			if (end - p < 8)
				return -1;
			memcpy(&v, p, 8);
			p += 8;
			sb_printf(b, "<bad 0x%" PRIx64 ">", v);
		} else if (st == FNT_STR_OK || st == FNT_STR_CUT) {
			if (p >= end || end - p - 1 < *p)
				return -1;
			unsigned n = *p++;
			sb_put(b, "\"", 1);
			for (unsigned i = 0; i < n; i++)
				put_escaped_char(b, p[i], '"');
			sb_put(b, st == FNT_STR_CUT ? "\"..." : "\"", st == FNT_STR_CUT ? 4 : 1);
			p += n;
		} else {
			return -1;
		}
		*pp = p;
		return 0;
	}
	unsigned w = fnt_argspec_item_width(it, version);
	if ((size_t)(end - p) < w)
		return -1;
	v = load_width(p, w);
	*pp = p + w;
	unsigned bits = it->size * 8u;
	uint64_t mask = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
	switch (it->fmt) {
	case FNT_FMT_INT:
	case FNT_FMT_ENUM: {
		int64_t sv = sign_extend(v, 64 - bits);
		if (it->fmt != FNT_FMT_ENUM || put_enum(b, text, tlen, v, mask))
			sb_put_i64(b, sv);
		break;
	}
	case FNT_FMT_UINT: sb_put_u64(b, v & mask, 0); break;
	case FNT_FMT_HEX: sb_put_hex(b, v & mask); break;
	case FNT_FMT_PTR: {
		char sym[256];
		if (!v)
			sb_put(b, "NULL", 4);
		else if (ptr_view && ptr_proc && !ptr_name(ptr_view, ptr_proc, ptr_ns, v, sym, sizeof(sym)))
			sb_put(b, sym, strlen(sym));   /* &main, &table+0x10 */
		else
			sb_put_hex(b, v);
		break;
	}
	case FNT_FMT_CHAR:
		sb_put(b, "'", 1);
		put_escaped_char(b, (unsigned char)v, '\'');
		sb_put(b, "'", 1);
		break;
	case FNT_FMT_BOOL: sb_put(b, (v & 0xff) ? "true" : "false", (v & 0xff) ? 4 : 5); break;
	case FNT_FMT_FLOAT:
		if (it->size == 4) {
			float f;
			uint32_t w = (uint32_t)v;
			memcpy(&f, &w, 4);
			put_float(b, f);
		} else {
			double d;
			memcpy(&d, &v, 8);
			put_double(b, d);
		}
		break;
	default:
		sb_printf(b, "%" PRIu64, v);
	}
	return 0;
}

/* A spec text parsed once: each line of a replay formats one, and parsing
 * it every time was most of the cost.  Direct-mapped by the text's
 * address, which names it while its trace is open: view_close and
 * view_detach call args_forget() before they free the texts (a trace read
 * after another may hold other texts at the same addresses). */
#define SPEC_CACHE 256
struct args_spec {                   /* what each line reads first, the rest after */
	const char *key;                 /* the text; NULL when the slot is empty (first: args_spec_holds) */
	uint32_t version;                /* the trace's format version (fnt_argspec_item_width) */
	/* [0] arguments, [1] return value: how many items, and whether each
	 * is a plain integer (int, unsigned or hex: its size's bytes of
	 * payload, or 8 before format version 4; at most 55 bytes of text
	 * with its name),
	 * which args_format writes without put_item's checks from `ops`, the
	 * side's items in order */
	uint8_t n_side[2], ints[2];
	/* the fast path's conditions, per side: a payload of at least
	 * fast_len bytes (SIZE_MAX: the side is not all plain integers) and
	 * room of more than fast_cap */
	size_t fast_len[2], fast_cap[2];
	struct int_op {
		const char *name;        /* written before '=' (arguments only) */
		uint8_t name_len;
		uint8_t fmt;             /* FNT_FMT_INT, _UINT or _HEX */
		uint8_t shift;           /* 64 - the item's bits: (v << shift) >> shift keeps them */
		uint8_t width;           /* its bytes in the payload */
	} ops[2][FNT_ARGS_MAX];
	struct fnt_argspec spec;
	uint16_t off[FNT_ARGS_MAX], len[FNT_ARGS_MAX];   /* each item's own text */
};
static struct args_spec *spec_cache;
_Static_assert(__builtin_offsetof(struct args_spec, key) == 0, "args_spec_holds reads the key first");

static int spec_parse(const char *spec_text, uint32_t version, struct args_spec *ps)
{
	size_t n = strlen(spec_text);
	ps->version = version;
	memset(&ps->spec, 0, sizeof(ps->spec));
	if (n > UINT16_MAX || fnt_argspec_parse(spec_text, n, &ps->spec))
		return -1;
	/* the item's own text (fnt_argspec_parse splits on every comma) */
	const char *text = spec_text;
	for (unsigned i = 0; i < ps->spec.n; i++) {
		const char *comma = strchr(text, ',');
		size_t tlen = comma ? (size_t)(comma - text) : strlen(text);
		ps->off[i] = (uint16_t)(text - spec_text);
		ps->len[i] = (uint16_t)tlen;
		text = comma ? comma + 1 : text + tlen;
	}
	ps->ints[0] = ps->ints[1] = 1;
	ps->n_side[0] = ps->n_side[1] = 0;
	for (unsigned i = 0; i < ps->spec.n; i++) {
		const struct fnt_arg_item *it = &ps->spec.item[i];
		int side = it->src == FNT_SRC_RET;
		struct int_op *op = &ps->ops[side][ps->n_side[side]++];
		op->name = it->name;
		op->name_len = side ? 0 : (uint8_t)strnlen(it->name, sizeof(it->name) - 1);
		op->fmt = it->fmt;
		op->shift = (uint8_t)(64u - (it->size >= 8 ? 64u : it->size * 8u));
		op->width = (uint8_t)fnt_argspec_item_width(it, version);
		if (it->fmt != FNT_FMT_INT && it->fmt != FNT_FMT_UINT && it->fmt != FNT_FMT_HEX)
			ps->ints[side] = 0;
	}
	for (int side = 0; side < 2; side++) {
		size_t need = 0;
		for (unsigned i = 0; i < ps->n_side[side]; i++)
			need += ps->ops[side][i].width;
		ps->fast_len[side] = ps->ints[side] ? need : SIZE_MAX;
		ps->fast_cap[side] = 56u * ps->n_side[side];
	}
	return 0;
}

/* a spec not in the cache: parsed into its slot */
static __attribute__((noinline)) const struct args_spec *spec_load(const char *spec_text, uint32_t version)
{
	if (!spec_cache)
		spec_cache = xcalloc(SPEC_CACHE, sizeof(*spec_cache));
	struct args_spec *ps = &spec_cache[((uintptr_t)spec_text >> 3) % SPEC_CACHE];
	ps->key = NULL;
	if (spec_parse(spec_text, version, ps))
		return NULL;
	ps->key = spec_text;
	return ps;
}

const struct args_spec *args_spec(const char *spec_text, uint32_t version)
{
	const struct args_spec *ps = spec_cache ? &spec_cache[((uintptr_t)spec_text >> 3) % SPEC_CACHE] : NULL;
	if (!spec_text)
		return NULL;
	/* the layout changed once: a spec parsed for a version on the same
	 * side of it reads the same */
	int same = ps && (ps->version >= FNT_FORMAT_ARGS_SIZED) == (version >= FNT_FORMAT_ARGS_SIZED);
	return same && ps->key == spec_text ? ps : spec_load(spec_text, version);
}

void args_forget(void)
{
	free(spec_cache);
	spec_cache = NULL;
}

/* args_format for a side whose items are all plain integers, with their
 * payload whole and room for every one: written straight out */
static size_t ints_format(const struct args_spec *ps, const uint8_t *p, int is_ret, char *out)
{
	char *q = out;
	const struct int_op *op = ps->ops[is_ret], *end = op + ps->n_side[is_ret];
	for (; op < end; p += op->width, op++) {
		uint64_t v;
		if (q != out) {
			memcpy(q, ", ", 2);
			q += 2;
		}
		if (op->name_len) {
			memcpy(q, op->name, op->name_len);
			q += op->name_len;
			*q++ = '=';
		}
		v = load_width(p, op->width);
		if (op->fmt == FNT_FMT_INT) {
			int64_t sv = sign_extend(v, op->shift);
			q = dec_at(q, sv < 0 ? 0 - (uint64_t)sv : (uint64_t)sv, sv < 0);
		} else if (op->fmt == FNT_FMT_UINT) {
			q = dec_at(q, (v << op->shift) >> op->shift, 0);
		} else {
			q = hex_at(q, (v << op->shift) >> op->shift);
		}
	}
	*q = 0;
	return (size_t)(q - out);
}

static const uint8_t *last_read;

const uint8_t *args_last_read(void)
{
	return last_read;
}

void args_read_clear(void)
{
	last_read = NULL;
}

/* args_format's items one by one, with put_item's checks */
static __attribute__((noinline)) size_t items_format(const struct args_spec *ps, const uint8_t *payload,
						   size_t len, int is_ret, char *out, size_t cap)
{
	const char *spec_text = ps->key;
	struct sbuf b = { out, 0, cap };
	const uint8_t *p = payload, *end = payload + len;
	int first = 1, short_ = 0;
	for (unsigned i = 0; i < ps->spec.n; i++) {
		const struct fnt_arg_item *it = &ps->spec.item[i];
		const char *itext = spec_text + ps->off[i];
		size_t tlen = ps->len[i];
		if ((it->src == FNT_SRC_RET) != is_ret)
			continue;
		if (!first)
			sb_put(&b, ", ", 2);
		first = 0;
		if (it->name[0] && !is_ret) {
			sb_put(&b, it->name, strlen(it->name));
			sb_put(&b, "=", 1);
		}
		if (short_ || (!payload && fnt_argspec_item_max(it)) || put_item(&b, it, itext, tlen, &p, end, ps->version)) {
			short_ = 1;
			sb_put(&b, "?", 1);
		}
	}
	return b.len;
}

size_t args_format_spec(const struct args_spec *ps, const uint8_t *payload, size_t len, int is_ret, char *out,
			size_t cap)
{
	if (!is_ret)
		last_read = payload;
	if (len >= ps->fast_len[is_ret] && cap > ps->fast_cap[is_ret] && payload)
		return ints_format(ps, payload, is_ret, out);
	if (!cap)
		return 0;
	out[0] = 0;
	return items_format(ps, payload, len, is_ret, out, cap);
}

size_t args_format(const char *spec_text, uint32_t version, const uint8_t *payload, size_t len, int is_ret, char *out,
		   size_t cap)
{
	const struct args_spec *ps = args_spec(spec_text, version);
	if (ps)
		return args_format_spec(ps, payload, len, is_ret, out, cap);
	if (!is_ret)
		last_read = payload;
	if (cap)
		out[0] = 0;
	return 0;
}

size_t args_orphan_retval(const struct trace_thread *th, const struct trace_event *ev, char *out, size_t cap)
{
	const char *spec = th->proc->n_argspecs && ev->payload ? trace_argspec(th->proc, ev->addr) : NULL;
	if (!spec)
		return 0;
	args_where(th->proc, ev->ns);
	return args_format(spec, th->proc->hdr.version, ev->payload, ev->payload_len, 1, out, cap);
}
