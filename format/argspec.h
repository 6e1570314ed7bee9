/*
 * argspec.h - the argument/return-value specs of -A/--argument and
 * -R/--retval, shared by the runtime (which captures what they name) and the
 * tool (which checks them on the command line and formats the payload).
 * doc/args.md is the user's description, doc/format.md the payload's.
 *
 * A spec is text: items separated by commas, each
 *     [name=](argN | fpargN | retval)[/fmt]
 * argN is the N-th integer-class argument (rdi, rsi, rdx, rcx, r8, r9, then
 * the stack), fpargN the N-th floating-point one (xmm0..xmm7), retval the
 * value returned (rax, or xmm0 with /f32 /f64, st(0) with /f80).  The text travels verbatim
 * in the trace (FNT_META_ARGSPEC), so the decoder formats with exactly the
 * spec the runtime captured with.  Header-only: the runtime links nothing
 * of the tool's.
 */
#ifndef FNT_ARGSPEC_H
#define FNT_ARGSPEC_H

#include <stdint.h>
#include <string.h>

#define FNT_ARGS_MAX     16    /* items per function (all the -A/-R specs that name it) */
#define FNT_ARG_STR_MAX  64    /* bytes of a string copied at record time */
#define FNT_ARG_STACK_MAX 16   /* argN up to this position */

enum fnt_arg_fmt {
	FNT_FMT_INT = 1,  /* signed decimal, size bytes */
	FNT_FMT_UINT,     /* unsigned decimal */
	FNT_FMT_HEX,      /* 0x..., size bytes */
	FNT_FMT_PTR,      /* 0x..., NULL for 0 */
	FNT_FMT_STR,      /* C string, copied at record time */
	FNT_FMT_CHAR,     /* 'c' */
	FNT_FMT_BOOL,     /* true/false */
	FNT_FMT_FLOAT,    /* f32 or f64 (size 4 or 8) */
	FNT_FMT_STRUCT,   /* passed by value, not captured: {...} */
	FNT_FMT_ENUM,     /* signed, shown by enumerator name: /e32{RED=0|GREEN=5} */
	FNT_FMT_LDOUBLE,  /* /f80: long double, in memory (argN, N > 6) or st(0) (retval) */
	FNT_FMT_STDSTRING,/* /t: the address of a std::string (libstdc++: data pointer, length) */
	FNT_FMT_STRVIEW,  /* /v: a std::string_view by value: argN its length, argN+1 its data */
};

enum fnt_arg_src { FNT_SRC_INT = 0, FNT_SRC_FP = 1, FNT_SRC_RET = 2 };

struct fnt_arg_item {
	uint8_t src;        /* enum fnt_arg_src */
	uint8_t index;      /* 0-based position (argN -> N-1) */
	uint8_t fmt;        /* enum fnt_arg_fmt */
	uint8_t size;       /* 1, 2, 4 or 8 */
	char name[32];      /* "" when unnamed */
};

struct fnt_argspec {
	uint8_t n;
	struct fnt_arg_item item[FNT_ARGS_MAX];
};

/* String payload status bytes (FNT_FMT_STR, STDSTRING and STRVIEW items) */
enum fnt_str_status { FNT_STR_NULL = 0, FNT_STR_BAD = 1, FNT_STR_OK = 2, FNT_STR_CUT = 3 };

static inline int fnt_argspec_num(const char **sp, const char *end, unsigned *out)
{
	const char *s = *sp;
	unsigned v = 0;
	if (s >= end || *s < '0' || *s > '9')
		return -1;
	while (s < end && *s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned)(*s++ - '0');
		if (v > 1000)
			return -1;
	}
	*sp = s;
	*out = v;
	return 0;
}

/* Parse one item [s, end).  Returns 0 or -1 (not a valid item). */
static inline int fnt_argspec_item(const char *s, const char *end, struct fnt_arg_item *it)
{
	const char *slash = memchr(s, '/', (size_t)(end - s));
	const char *eq = memchr(s, '=', (size_t)((slash ? slash : end) - s));
	unsigned n = 0;
	memset(it, 0, sizeof(*it));
	if (eq) {
		size_t nl = (size_t)(eq - s);
		if (!nl || nl >= sizeof(it->name))
			return -1;
		for (size_t i = 0; i < nl; i++) {
			char c = s[i];
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
				return -1;
		}
		memcpy(it->name, s, nl);
		s = eq + 1;
	}
	if ((size_t)(end - s) >= 6 && !memcmp(s, "retval", 6)) {
		it->src = FNT_SRC_RET;
		s += 6;
	} else if ((size_t)(end - s) >= 5 && !memcmp(s, "fparg", 5)) {
		s += 5;
		if (fnt_argspec_num(&s, end, &n) || n < 1 || n > 8)
			return -1;
		it->src = FNT_SRC_FP;
		it->index = (uint8_t)(n - 1);
	} else if ((size_t)(end - s) >= 3 && !memcmp(s, "arg", 3)) {
		s += 3;
		if (fnt_argspec_num(&s, end, &n) || n < 1 || n > FNT_ARG_STACK_MAX)
			return -1;
		it->src = FNT_SRC_INT;
		it->index = (uint8_t)(n - 1);
	} else {
		return -1;
	}
	/* defaults: an int for integer registers, a double for fp ones */
	it->fmt = it->src == FNT_SRC_FP ? FNT_FMT_FLOAT : FNT_FMT_INT;
	it->size = it->src == FNT_SRC_FP ? 8 : 4;
	if (s == end)
		return 0;
	if (*s++ != '/' || s == end)
		return -1;
	char f = *s++;
	unsigned bits = 0;
	if (s < end && *s != '{' && fnt_argspec_num(&s, end, &bits))
		return -1;
	if (f == 'e' && s < end && *s == '{') {
		/* enumerators NAME=VALUE|...: for the decoder; the runtime skips them */
		if (end[-1] != '}' || memchr(s + 1, '{', (size_t)(end - s - 1)))
			return -1;
		s = end;
	}
	if (s != end)
		return -1;
	switch (f) {
	case 'd': case 'i': it->fmt = FNT_FMT_INT; break;
	case 'u': it->fmt = FNT_FMT_UINT; break;
	case 'x': it->fmt = FNT_FMT_HEX; if (!bits) bits = 64; break;
	case 'p': it->fmt = FNT_FMT_PTR; if (bits) return -1; bits = 64; break;
	case 's': it->fmt = FNT_FMT_STR; if (bits) return -1; bits = 64; break;
	case 'c': it->fmt = FNT_FMT_CHAR; if (bits) return -1; bits = 8; break;
	case 'b': it->fmt = FNT_FMT_BOOL; if (bits) return -1; bits = 8; break;
	case 'f': it->fmt = FNT_FMT_FLOAT; if (!bits) bits = 64; break;
	case 'S': it->fmt = FNT_FMT_STRUCT; if (bits) return -1; bits = 64; break;
	case 'e': it->fmt = FNT_FMT_ENUM; break;
	case 't': it->fmt = FNT_FMT_STDSTRING; if (bits) return -1; bits = 64; break;
	case 'v': it->fmt = FNT_FMT_STRVIEW; if (bits) return -1; bits = 64; break;
	default: return -1;
	}
	if (it->fmt == FNT_FMT_FLOAT && bits == 80) {
		/* long double: never in a register but st(0) on return; as an
		 * argument it is in memory, a stack word argN (N > 6) */
		if (it->src == FNT_SRC_FP || (it->src == FNT_SRC_INT && it->index < 6))
			return -1;
		it->fmt = FNT_FMT_LDOUBLE;
		it->size = 10;
		return 0;
	}
	/* a string_view takes two integer-class words, neither split across
	 * the registers and the stack */
	if (it->fmt == FNT_FMT_STRVIEW && it->src == FNT_SRC_INT && (it->index == 5 || it->index + 1 >= FNT_ARG_STACK_MAX))
		return -1;
	if (!bits)
		bits = 32;
	if (it->fmt == FNT_FMT_FLOAT ? (bits != 32 && bits != 64) : (bits != 8 && bits != 16 && bits != 32 && bits != 64))
		return -1;
	/* floats live in xmm registers: fpargN or retval, never argN */
	if ((it->fmt == FNT_FMT_FLOAT) != (it->src == FNT_SRC_FP) && it->src != FNT_SRC_RET)
		return -1;
	if (it->src == FNT_SRC_FP && it->fmt != FNT_FMT_FLOAT)
		return -1;
	it->size = (uint8_t)(bits / 8);
	return 0;
}

/* Parse a whole item list "a,b,c" of len bytes, appending to spec.
 * Returns 0, or the 1-based position of the first bad item. */
static inline int fnt_argspec_parse(const char *s, size_t len, struct fnt_argspec *spec)
{
	const char *end = s + len;
	int pos = 0;
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *e = comma ? comma : end;
		pos++;
		if (spec->n == FNT_ARGS_MAX || fnt_argspec_item(s, e, &spec->item[spec->n]))
			return pos;
		spec->n++;
		s = comma ? comma + 1 : end;
	}
	return 0;
}

/* the format version from which a fixed-size item (an integer, pointer,
 * char, bool, float or enum) takes its `size` low bytes, not 8
 * (doc/format.md, "Argument payloads") */
#define FNT_FORMAT_ARGS_SIZED 4

/* Bytes a fixed-size item takes in a file of format `version` */
static inline unsigned fnt_argspec_item_width(const struct fnt_arg_item *it, uint32_t version)
{
	return version >= FNT_FORMAT_ARGS_SIZED ? it->size : 8;
}

/* Bytes an item's payload takes at most, as the runtime writes it (the
 * current format version) */
static inline unsigned fnt_argspec_item_max(const struct fnt_arg_item *it)
{
	if (it->fmt == FNT_FMT_STRUCT)
		return 0;
	if (it->fmt == FNT_FMT_STR || it->fmt == FNT_FMT_STDSTRING || it->fmt == FNT_FMT_STRVIEW)
		return 2 + FNT_ARG_STR_MAX > 9 ? 2 + FNT_ARG_STR_MAX : 9;
	if (it->fmt == FNT_FMT_LDOUBLE)
		return 16;
	return it->size;
}

#endif
