/*
 * util.c - the tool's small helpers: git-style messages ("fntrace: ..."),
 * allocation that dies on failure, option value parsing, duration format.
 * Only the tool dies; the reader and symbolizer return errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include "tool/tool.h"

const char *cmd_name = "fntrace";

/* A message names files, functions and threads that the trace (the traced
 * program) chose: its control characters go out as C escapes, as in the
 * text views, so that a module path cannot send an escape sequence to the
 * terminal or split the message into lines (no message's format has any). */
static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024], *m = buf;
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof(buf) && (m = malloc((size_t)n + 1)))
		vsnprintf(m, (size_t)n + 1, fmt, ap);
	else if (n >= (int)sizeof(buf))
		m = buf;           /* out of memory: the message cut */
	fflush(stdout);
	fputs("fntrace: ", stderr);
	if (prefix)
		fputs(prefix, stderr);
	text_fput(n < 0 ? fmt : m, stderr);
	fputc('\n', stderr);
	if (m != buf)
		free(m);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	exit(1);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	if (strcmp(cmd_name, "fntrace"))
		fprintf(stderr, "usage: see 'fntrace %s --help'\n", cmd_name);
	else
		fprintf(stderr, "usage: see 'fntrace --help'\n");
	exit(2);
}

void error_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		die("out of memory");
	return d;
}

void strlist_add(struct strlist *l, const char *s)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = s;
}

uint64_t parse_uint(const char *opt, const char *arg, uint64_t max)
{
	char *end;
	unsigned long long v;
	errno = 0;
	if (!arg || !*arg || *arg == '-')
		die_usage("option '%s' needs a number, not '%s'", opt, arg ? arg : "");
	v = strtoull(arg, &end, 10);
	if (errno || *end || v > max)
		die_usage("option '%s': '%s' is not a number from 0 to %" PRIu64, opt, arg, max);
	return v;
}

/* -D/--depth, in record and the views alike: a depth from 1 (0 would read
 * as "nothing", which no one asks for, or as "no limit", which is the
 * default already) */
int parse_depth(const char *opt, const char *arg)
{
	char *end = NULL;
	int digits = arg && *arg >= '0' && *arg <= '9';
	unsigned long long d;
	errno = 0;
	d = digits ? strtoull(arg, &end, 10) : 0;
	if (!digits || errno || *end || d > (1u << 30))
		die_usage("option '%s': '%s' is not a depth from 1 to %u", opt, arg ? arg : "", 1u << 30);
	if (!d)
		die_usage("option '%s' takes a depth of at least 1, not '%s'", opt, arg);
	return (int)d;
}

/* "256K", "1M", "65536" */
uint64_t parse_size(const char *opt, const char *arg)
{
	char *end;
	unsigned long long v;
	errno = 0;
	if (!arg || !*arg || *arg == '-')
		die_usage("option '%s' needs a size, not '%s'", opt, arg ? arg : "");
	v = strtoull(arg, &end, 10);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (errno || *end)
		die_usage("option '%s': '%s' is not a size (like 256K or 4M)", opt, arg);
	return v;
}

/* "%7.3f us" / " ms" / "  s" without stdio: exactly 10 characters, the
 * fraction truncated (not rounded) so that every view agrees digit for digit */
/* "  7" .. "999" and "000" .. "999": replay writes two durations a call */
static char dur_int[1000][4], dur_frac[1000][4];

static void dur_tables(void)
{
	for (unsigned i = 0; i < 1000; i++) {
		snprintf(dur_int[i], sizeof(dur_int[i]), "%3u", i);
		snprintf(dur_frac[i], sizeof(dur_frac[i]), "%03u", i);
	}
}

char *put_duration(char *p, uint64_t ns)
{
	uint64_t ip, frac;
	const char *unit;
	char tmp[24];
	int n = 0;

	if (ns < 1000000ull)
		ip = ns / 1000, frac = ns % 1000, unit = " us";
	else if (ns < 1000000000ull)
		ip = ns / 1000000, frac = ns / 1000 % 1000, unit = " ms";
	else
		ip = ns / 1000000000ull, frac = ns / 1000000 % 1000, unit = "  s";
	if (ip < 1000) {
		if (!dur_int[0][0])
			dur_tables();
		memcpy(p, dur_int[ip], 4);
		p[3] = '.';
		memcpy(p + 4, dur_frac[frac], 3);
		memcpy(p + 7, unit, 3);
		return p + 10;
	}
	do
		tmp[n++] = (char)('0' + ip % 10);
	while ((ip /= 10));
	for (int pad = 3 - n; pad > 0; pad--)
		*p++ = ' ';
	while (n)
		*p++ = tmp[--n];
	*p++ = '.';
	*p++ = (char)('0' + frac / 100);
	*p++ = (char)('0' + frac / 10 % 10);
	*p++ = (char)('0' + frac % 10);
	memcpy(p, unit, 3);
	return p + 3;
}

void format_duration(char *buf, size_t len, uint64_t ns)
{
	char tmp[40];
	char *e = put_duration(tmp, ns);
	*e = 0;
	snprintf(buf, len, "%s", tmp);
}

/* Waits for `child`, calling tick(ctx) between looks: tick returns how
 * long to sleep before the next.  SIGCHLD is blocked here only (the child
 * did not inherit this mask), so one that comes between waitpid and the
 * sleep stays pending and ends the sleep at once.  0, or -1 with errno. */
int wait_child(pid_t child, int *status, long (*tick)(void *ctx), void *ctx)
{
	sigset_t chld, old;
	pid_t r;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	while ((r = waitpid(child, status, WNOHANG)) != child) {
		if (r < 0 && errno != EINTR) {
			int e = errno;
			sigprocmask(SIG_SETMASK, &old, NULL);
			errno = e;
			return -1;
		}
		long ns = tick(ctx);
		struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
		sigtimedwait(&chld, NULL, &ts);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}

const char *signal_desc(int sig)
{
	const char *s = strsignal(sig);
	return s ? s : "unknown signal";
}

/* "SIGUSR2", "USR2", "usr2" or a number; 0 if unknown */
int parse_signal(const char *arg)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "USR1", SIGUSR1 },
		{ "USR2", SIGUSR2 }, { "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
		{ "CONT", SIGCONT }, { "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
		{ "URG", SIGURG }, { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM },
		{ "PROF", SIGPROF }, { "WINCH", SIGWINCH }, { "IO", SIGIO }, { "PWR", SIGPWR },
	};
	char *end;
	long v = strtol(arg, &end, 10);
	if (*arg && !*end)
		return v > 0 && v < NSIG && v != SIGKILL && v != SIGSTOP ? (int)v : 0;
	if (!strncasecmp(arg, "SIG", 3))
		arg += 3;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcasecmp(arg, sigs[i].name))
			return sigs[i].sig;
	return 0;
}

/* U+0080..U+009F, the C1 controls (0xc2 0x80..0x9f in UTF-8): some
 * terminals take U+009B for CSI, as they take ESC [ */
static int c1_at(const char *s, size_t i, size_t n)
{
	return (unsigned char)s[i] == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
	       (unsigned char)s[i + 1] <= 0x9f;
}

size_t text_escaped_len(const char *s, size_t n)
{
	size_t len = n;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n' || c == '\t' || c == '\r')
			len += 1;
		else if (c < 0x20 || c == 0x7f)
			len += 3;
		else if (c1_at(s, i, n))
			len += 6, i++;
	}
	return len;
}

char *text_escape(char *dst, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int c1 = c1_at(s, i, n);
		if (c >= 0x20 && c != 0x7f && !c1) {
			*dst++ = (char)c;
			continue;
		}
		*dst++ = '\\';
		if (c == '\n' || c == '\t' || c == '\r') {
			*dst++ = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
			continue;
		}
		*dst++ = 'x';
		*dst++ = hex[c >> 4];
		*dst++ = hex[c & 15];
		if (c1) {               /* both bytes: \xc2\x9b */
			c = (unsigned char)s[++i];
			*dst++ = '\\';
			*dst++ = 'x';
			*dst++ = hex[c >> 4];
			*dst++ = hex[c & 15];
		}
	}
	return dst;
}

char *text_escape_dup(const char *s)
{
	size_t n = strlen(s);
	char *d = xmalloc(text_escaped_len(s, n) + 1);
	*text_escape(d, s, n) = 0;
	return d;
}

void text_fput(const char *s, FILE *f)
{
	size_t n = strlen(s);
	if (text_escaped_len(s, n) == n) {
		fwrite(s, 1, n, f);
		return;
	}
	char *d = text_escape_dup(s);
	fputs(d, f);
	free(d);
}

const char *text_safe(const char *s, char *buf, size_t cap)
{
	size_t n = strlen(s), k = 0;
	char esc[8];
	if (text_escaped_len(s, n) == n || !cap)
		return s;
	for (size_t i = 0; i < n; i++) {
		size_t m = c1_at(s, i, n) ? 2 : 1;
		size_t len = (size_t)(text_escape(esc, s + i, m) - esc);
		if (k + len >= cap)
			break;
		memcpy(buf + k, esc, len);
		k += len;
		i += m - 1;
	}
	buf[k] = 0;
	return buf;
}

/* uftrace's filters are regular expressions; fntrace's are globs.  A
 * pattern that reads as a regex ('mi.*', '^fi', 'main$', '.') matches
 * nothing or the wrong names as a glob: say so, with the glob it likely
 * means. */
void glob_regex_hint(const char *opt, const char *pat)
{
	size_t n = strlen(pat);
	int regex = !strcmp(pat, ".") || !strcmp(pat, ".*") || pat[0] == '^' || (n > 1 && pat[n - 1] == '$') ||
		    strstr(pat, ".*") || strstr(pat, ".+") || strstr(pat, "\\.");
	if (!regex)
		return;
	char *g = xmalloc(n + 2), *o = g;
	const char *p = pat + (pat[0] == '^');
	size_t end = n - (n > 1 && pat[n - 1] == '$');
	if (!strcmp(pat, ".")) {
		strcpy(g, "*");
	} else {
		for (; (size_t)(p - pat) < end; p++) {
			if (p[0] == '.' && (p[1] == '*' || p[1] == '+')) {
				*o++ = '*';
				p++;
			} else if (p[0] == '\\' && p[1] == '.') {
				*o++ = '.';
				p++;
			} else {
				*o++ = *p;
			}
		}
		*o = 0;
	}
	warning("option '%s': '%s' looks like a regular expression (uftrace's filters); fntrace takes globs: "
		"'%s'?", opt, pat, g);
	free(g);
}

uint64_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
