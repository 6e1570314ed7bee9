/*
 * outbuf.h - the streaming exporters' output: one large buffer flushed
 * with fwrite when it fills, and hand-written number and string formatting
 * (no printf per event).  Every put checks room first, so a caller may
 * write any length; the buffer size bounds the memory however big the trace.
 */
#ifndef FNT_OUTBUF_H
#define FNT_OUTBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OUTBUF_CAP (1u << 20)

struct outbuf {
	FILE *out;
	char *buf;
	size_t len;
	int failed;             /* an fwrite came short: the writer reports it once at the end */
};

static inline void outbuf_flush(struct outbuf *o)
{
	if (o->len && fwrite(o->buf, 1, o->len, o->out) != o->len)
		o->failed = 1;
	o->len = 0;
}

/* room for n more bytes (n <= OUTBUF_CAP) */
static inline char *outbuf_room(struct outbuf *o, size_t n)
{
	if (o->len + n > OUTBUF_CAP)
		outbuf_flush(o);
	return o->buf + o->len;
}

static inline void outbuf_put(struct outbuf *o, const void *s, size_t n)
{
	while (n > OUTBUF_CAP / 2) {      /* a huge string goes out in pieces */
		outbuf_put(o, s, OUTBUF_CAP / 2);
		s = (const char *)s + OUTBUF_CAP / 2;
		n -= OUTBUF_CAP / 2;
	}
	memcpy(outbuf_room(o, n), s, n);
	o->len += n;
}

static inline void outbuf_puts(struct outbuf *o, const char *s)
{
	outbuf_put(o, s, strlen(s));
}

/* decimal digits of v at p; returns the end.  Two digits per division,
 * from a table: numbers are most of what the exporters write. */
static inline char *fmt_u64(char *p, uint64_t v)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[20], *t = tmp + 20;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		t -= 2;
		memcpy(t, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		t -= 2;
		memcpy(t, pairs + 2 * v, 2);
	} else {
		*--t = (char)('0' + v);
	}
	memcpy(p, t, (size_t)(tmp + 20 - t));
	return p + (tmp + 20 - t);
}

/* ns as microseconds with three decimals (exact: 1234567 -> "1234.567") */
static inline char *fmt_us3(char *p, uint64_t ns)
{
	uint64_t frac = ns % 1000;
	p = fmt_u64(p, ns / 1000);
	p[0] = '.';
	p[1] = (char)('0' + frac / 100);
	p[2] = (char)('0' + frac / 10 % 10);
	p[3] = (char)('0' + frac % 10);
	return p + 4;
}

/* the length of the valid UTF-8 sequence at u (1 for ASCII), or 0 when the
 * byte there starts none (overlong, surrogate, beyond U+10FFFF, cut) */
static inline size_t utf8_len(const unsigned char *u, const unsigned char *end)
{
	unsigned c = *u;
	if (c < 0x80)
		return 1;
	size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (!len || (size_t)(end - u) < len)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	if (len == 3 && ((c == 0xe0 && u[1] < 0xa0) || (c == 0xed && u[1] >= 0xa0)))
		return 0;                /* overlong, or a UTF-16 surrogate */
	if (len == 4 && ((c == 0xf0 && u[1] < 0x90) || (c == 0xf4 && u[1] >= 0x90)))
		return 0;                /* overlong, or beyond U+10FFFF */
	return len;
}

#define UTF8_REPLACEMENT "\xef\xbf\xbd"     /* U+FFFD, as UTF-8 */

/* One character of the text at u (u < end), as valid UTF-8: *used bytes of
 * the text are consumed, and the *len bytes returned are what to write:
 * the character itself, or U+FFFD for a byte that starts no valid
 * sequence.  Program-controlled text (names, command lines, thread names,
 * marks, argument strings) goes through this wherever the output must be
 * UTF-8: csv, svg, html, perfetto (json_escape_as writes the same
 * replacement as \ufffd). */
static inline const char *utf8_char(const unsigned char *u, const unsigned char *end, size_t *used, size_t *len)
{
	size_t n = utf8_len(u, end);
	if (!n) {
		*used = 1;
		*len = 3;
		return UTF8_REPLACEMENT;
	}
	*used = *len = n;
	return (const char *)u;
}

/* the n bytes at s as valid UTF-8 (utf8_char) into dst: at most max
 * bytes, never part of a character; returns the end */
static inline char *utf8_clean(char *dst, const char *s, size_t n, size_t max)
{
	const unsigned char *u = (const unsigned char *)s, *end = u + n;
	size_t out = 0, used, len;
	while (u < end) {
		const char *c = utf8_char(u, end, &used, &len);
		if (out + len > max)
			break;
		memcpy(dst + out, c, len);
		out += len;
		u += used;
	}
	return dst + out;
}

/* the length of utf8_clean's output for all n bytes at s (n when they
 * are valid UTF-8) */
static inline size_t utf8_clean_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s, *end = u + n;
	size_t out = 0, used, len;
	while (u < end) {
		utf8_char(u, end, &used, &len);
		out += len;
		u += used;
	}
	return out;
}

#define JSON_HTML 1     /* also write <, > and & as \u escapes: safe inside <script> */

/*
 * JSON string body of the n bytes at s (no quotes) into dst, which must
 * hold 6 * n bytes; returns the end.  Quote, backslash and control bytes
 * are escaped; the text is checked as UTF-8 and every byte that does not
 * belong to a valid sequence becomes U+FFFD, so the output always parses
 * as JSON whatever the names, marks, thread names or strings hold.  This is
 * the one JSON string writer of every JSON fntrace writes.
 */
static inline char *json_escape_as(char *dst, const char *s, size_t n, int flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s, *end = u + n;
	while (u < end) {
		unsigned c = *u;
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
		    (!(flags & JSON_HTML) || (c != '<' && c != '>' && c != '&'))) {
			*dst++ = (char)c;
			u++;
			continue;
		}
		if (c < 0x80) {
			*dst++ = '\\';
			if (c == '"' || c == '\\') {
				*dst++ = (char)c;
			} else if (c == '\n') {
				*dst++ = 'n';
			} else if (c == '\t') {
				*dst++ = 't';
			} else {
				memcpy(dst, "u00", 3);
				dst[3] = hex[c >> 4];
				dst[4] = hex[c & 15];
				dst += 5;
			}
			u++;
			continue;
		}
		size_t len = utf8_len(u, end);
		if (!len) {
			memcpy(dst, "\\ufffd", 6);
			dst += 6;
			u++;
			continue;
		}
		memcpy(dst, u, len);
		dst += len;
		u += len;
	}
	return dst;
}

static inline char *json_escape(char *dst, const char *s, size_t n)
{
	return json_escape_as(dst, s, n, 0);
}

/* a quoted JSON string to a stdio stream (report, html): escaped in pieces
 * that never split a UTF-8 sequence */
static inline void json_fput(FILE *f, const char *s, int flags)
{
	char buf[6 * 512 + 8];
	size_t n = strlen(s);
	fputc('"', f);
	while (n) {
		size_t k = n > 512 ? 512 : n;
		while (k < n && k > 509 && ((unsigned char)s[k] & 0xc0) == 0x80)
			k--;             /* end the piece before a continuation byte */
		char *e = json_escape_as(buf, s, k, flags);
		fwrite(buf, 1, (size_t)(e - buf), f);
		s += k;
		n -= k;
	}
	fputc('"', f);
}

/* a CSV field (RFC 4180): quoted when it holds a comma, quote or line
 * break; bytes that are not valid UTF-8 become U+FFFD, as in JSON */
static inline void csv_fput(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s, *end = u + strlen(s);
	int quote = strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		fputc('"', f);
	while (u < end) {
		size_t used, len;
		const char *c = utf8_char(u, end, &used, &len);
		if (*u == '"')
			fputc('"', f);
		fwrite(c, 1, len, f);
		u += used;
	}
	if (quote)
		fputc('"', f);
}

#endif
