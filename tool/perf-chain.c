/*
 * perf-chain.c - reading `perf script` text and rewriting one sample's
 * callchain with the calls the trace says were open (perf-chain.h).
 *
 * Lines are parsed where they lie in the input (nothing copied); a line that
 * is not what perf prints is kept as it is.  The rewritten frames copy the
 * look of the line they replace (its indent, the width of the address
 * column, whether offsets and modules are shown), so that what reads perf's
 * text (FlameGraph's stackcollapse-perf.pl, speedscope) reads ours.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool/perf-chain.h"

static int is_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* "123" or "123/456" (pid/tid): the tid */
static int tid_token(const char *s, size_t n, uint32_t *tid)
{
	const char *slash = memchr(s, '/', n);
	const char *t = slash ? slash + 1 : s;
	size_t tn = n - (size_t)(t - s);
	if ((slash && !is_digits(s, (size_t)(slash - s))) || !is_digits(t, tn) || tn > 10)
		return -1;
	uint64_t v = strtoull(t, NULL, 10);
	if (v > UINT32_MAX)
		return -1;
	*tid = (uint32_t)v;
	return 0;
}

/* "12345.678901:" -> ns */
static int time_token(const char *s, size_t n, uint64_t *ns)
{
	const char *dot = memchr(s, '.', n);
	if (n < 4 || s[n - 1] != ':' || !dot || !is_digits(s, (size_t)(dot - s)) ||
	    !is_digits(dot + 1, (size_t)(s + n - 1 - dot - 1)) || dot - s > 10)
		return -1;
	uint64_t sec = strtoull(s, NULL, 10), frac = 0;
	size_t digits = 0;
	for (const char *p = dot + 1; p < s + n - 1 && digits < 9; p++, digits++)
		frac = frac * 10 + (uint64_t)(*p - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

int pc_parse_header(const char *line, size_t len, uint32_t *tid, uint64_t *ns)
{
	const char *tok[64];
	size_t tlen[64], n = 0;

	if (!len || line[0] == ' ' || line[0] == '\t')
		return -1;
	for (size_t i = 0; i < len && n < 64;) {
		while (i < len && line[i] == ' ')
			i++;
		if (i >= len)
			break;
		tok[n] = line + i;
		while (i < len && line[i] != ' ')
			i++;
		tlen[n] = (size_t)(line + i - tok[n]);
		n++;
	}
	/* comm, then the tid, maybe "[cpu]", then the time, then the period and
	 * the event.  The comm is a thread's name, which may hold spaces and
	 * look like "77 1.5:" itself ("w 77 1.5: x"): the tid and time are the
	 * last such pair (what follows them is no time), so look from the right */
	for (size_t i = n - 2; n >= 3 && i >= 1; i--) {
		size_t t = i + 1;
		if (tlen[t] >= 3 && tok[t][0] == '[' && tok[t][tlen[t] - 1] == ']' && is_digits(tok[t] + 1, tlen[t] - 2))
			t++;
		if (t < n && tid_token(tok[i], tlen[i], tid) == 0 && time_token(tok[t], tlen[t], ns) == 0)
			return 0;
	}
	return -1;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

void pc_parse_frame(const char *line, size_t len, struct pc_frame *f)
{
	size_t i = 0, a;

	memset(f, 0, sizeof(*f));
	f->line = line;
	f->len = len;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (!i)
		return;
	for (a = i; i < len && is_hex(line[i]); i++)
		;
	if (i == a || i - a > 16 || i >= len || line[i] != ' ')
		return;
	f->addr = strtoull(line + a, NULL, 16);
	i++;
	const char *rest = line + i;
	size_t rlen = len - i;
	f->sym = rest;
	f->sym_len = rlen;
	/* " (dso)" at the end.  A module's path may hold " (" itself
	 * ("/opt/App (x86)/prog"), a symbol hardly before its module: the
	 * first " (/" or " ([" ([unknown], [vdso]) opens it, else the last " (" */
	if (rlen >= 3 && rest[rlen - 1] == ')') {
		size_t at = 0;
		for (size_t k = 1; k + 1 < rlen && !at; k++)
			if (rest[k] == '(' && rest[k - 1] == ' ' && (rest[k + 1] == '/' || rest[k + 1] == '['))
				at = k;
		for (size_t k = rlen - 1; k > 0 && !at; k--)
			if (rest[k] == '(' && rest[k - 1] == ' ')
				at = k;
		if (at) {
			f->dso = rest + at + 1;
			f->dso_len = rlen - at - 2;
			f->sym_len = at - 1;
		}
	}
	/* "+0xoff" at the end of the symbol */
	for (size_t k = f->sym_len; k >= 3; k--)
		if (f->sym[k - 3] == '+' && f->sym[k - 2] == '0' && f->sym[k - 1] == 'x') {
			size_t d = k;
			while (d < f->sym_len && is_hex(f->sym[d]))
				d++;
			if (d == f->sym_len && d > k) {
				f->off = strtoull(f->sym + k, NULL, 16);
				f->has_off = 1;
				f->sym_len = k - 3;
			}
			break;
		}
	f->parsed = 1;
	f->tramp = pc_tramp_sym(f->sym, f->sym_len, f->off, f->has_off);
}

int pc_tramp_sym(const char *sym, size_t len, uint64_t off, int has_off)
{
#define SYM_IS(s) (len == sizeof(s) - 1 && !memcmp(sym, s, sizeof(s) - 1))
	return (SYM_IS("fnt_traced_return") && has_off && off <= 1) ||
	       (SYM_IS("fnt_return_trampoline") && (!has_off || off == 0));
#undef SYM_IS
}

static const char *base_name(const char *p, size_t n, size_t *out_n)
{
	const char *b = p;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '/')
			b = p + i + 1;
	*out_n = n - (size_t)(b - p);
	return b;
}

static int same_module(const struct pc_frame *h, const char *dso)
{
	size_t n = strlen(dso), hb_n, b_n;
	const char *hb, *b;
	if (!h->dso || (h->dso_len == 7 && !memcmp(h->dso, "inlined", 7)))
		return 1;           /* an inlined frame names no module: its address decides */
	if (h->dso_len == n && !memcmp(h->dso, dso, n))
		return 1;
	hb = base_name(h->dso, h->dso_len, &hb_n);
	b = base_name(dso, n, &b_n);
	return hb_n == b_n && !memcmp(hb, b, b_n);
}

/* a library function's name without glibc's decorations: the version perf
 * adds ("@@GLIBC_2.17"), the internal alias prefix ("__GI_") and leading
 * underscores, so that "__GI___clock_gettime" is "clock_gettime" */
static const char *core_name(const char *s, size_t n, size_t *out_n)
{
	const char *at = memchr(s, '@', n);
	if (at)
		n = (size_t)(at - s);
	if (n > 5 && !memcmp(s, "__GI_", 5)) {
		s += 5;
		n -= 5;
	}
	while (n > 1 && *s == '_') {
		s++;
		n--;
	}
	*out_n = n;
	return s;
}

/* the frame just inside the first swapped one lies in the call's function:
 * the same module, and the same name (perf adds "@@GLIBC_2.17" to versioned
 * ones) or an address inside the function.  A library call is known by its
 * GOT slot in the calling module, which no function symbol covers (size 0):
 * the function the slot led to decides by address when the trace names it
 * (FNT_META_LIBCALL: memcpy's slot leads to __memmove_avx_unaligned_erms,
 * puts's to _IO_puts), else its name, as the library names it.  A head that
 * is the sample's own address (head_is_pc) fits a library call anywhere in
 * the library it went to, and any call in a module the program runs
 * untraced. */
static int head_fits(const struct pc_frame *h, const struct pc_call *c, int head_is_pc)
{
	size_t n, sym_len = h->sym_len;
	const char *at = memchr(h->sym, '@', h->sym_len);
	/* (a sample taken deeper than the library function, in what it called:
	 * in puts's strlen, in write's system call, somewhere in its library) */
	if (!c->size && c->target_size && c->target_dso && same_module(h, c->target_dso) &&
	    ((h->addr >= c->target_start && h->addr - c->target_start < c->target_size) ||
	     (head_is_pc && h->dso)))
		return 1;
	/* (and a sample taken in code the program runs untraced, a library or
	 * the dynamic linker, called from the call: printf's strlen in main) */
	if (head_is_pc && h->untraced)
		return 1;
	if (!c->name)
		return 0;
	if (at && at > h->sym)
		sym_len = (size_t)(at - h->sym);
	n = strlen(c->name);
	int name_ok = sym_len == n && !memcmp(h->sym, c->name, n);
	if (!c->size && !name_ok) {
		size_t a_n, b_n;
		const char *a = core_name(h->sym, h->sym_len, &a_n), *b = core_name(c->name, n, &b_n);
		name_ok = a_n == b_n && !memcmp(a, b, a_n);
	}
	if (!same_module(h, c->dso))
		return !c->size && name_ok;
	return name_ok || (c->size && h->addr >= c->start && h->addr - c->start < c->size);
}

/* a frame line like model's: its indent, address width, offset and module shown as there */
static void put_frame(FILE *o, const struct pc_frame *model, const char *name, const char *dso, uint64_t addr,
		      uint64_t off)
{
	size_t ws = 0, tab = 0, hex = 0;
	while (ws < model->len && (model->line[ws] == ' ' || model->line[ws] == '\t')) {
		if (model->line[ws] == '\t')
			tab = ws + 1;
		ws++;
	}
	while (ws + hex < model->len && is_hex(model->line[ws + hex]))
		hex++;
	int width = (int)(ws - tab + hex);
	fprintf(o, "%.*s%*" PRIx64 " %s", (int)tab, model->line, width, name ? addr : 0, name ? name : "[unknown]");
	if (name && model->has_off)
		fprintf(o, "+0x%" PRIx64, off);
	if (model->dso)
		fprintf(o, " (%s)", name && dso ? dso : "[unknown]");
	fputc('\n', o);
}

void pc_scan(struct pc_sample *s)
{
	s->n_tramp = 0;
	s->first = s->head = s->n_frames;
	s->last = 0;
	s->trailing = 0;
	for (size_t i = 0; i < s->n_frames; i++)
		if (s->frames[i].tramp) {
			if (!s->n_tramp++)
				s->first = i;
			s->last = i;
		}
	if (!s->n_tramp)
		return;
	for (size_t i = s->first; i-- > 0;)
		if (s->frames[i].parsed) {
			s->head = i;
			break;
		}
	for (size_t i = s->last + 1; i < s->n_frames; i++)
		s->trailing |= s->frames[i].parsed;
}

/* how many frames a walk by frame pointers may have skipped below the first
 * swapped one (functions without a frame pointer called from a traced one) */
#define PC_MAX_SKIPPED 64

/* the call (counted from the innermost) whose return address the first
 * swapped frame is */
size_t pc_first_slot(const struct pc_sample *s, size_t n)
{
	/* A chain that goes on past its last swapped frame was walked by frame
	 * pointers out of the traced calls: its last swapped frame is the
	 * outermost call's.  One that ends there was walked by an unwinder that
	 * stopped at the first (DWARF), or by frame pointers that ended at the
	 * outermost call's (code above main keeps none) or at perf's depth
	 * limit: counting from the innermost is right for all three, and the
	 * calls the chain lacks are appended. */
	return s->trailing ? n - s->n_tramp : 0;
}

int pc_fit(const struct pc_sample *s, const struct pc_call *calls, size_t n, size_t *skipped_to)
{
	size_t a, j;
	if (!s->n_tramp)
		return -1;
	if (s->head == s->n_frames || s->n_tramp > n)
		return 0;
	a = pc_first_slot(s, n);
	/* The frame inside the first swapped one lies in that call's function,
	 * or in a deeper call's when the walk skipped frames; the skipped
	 * traced frames are put back from the trace too.  (t and j count from
	 * the innermost call: calls[n - 1 - j].) */
	for (j = a + 1; j-- > 0 && a - j < PC_MAX_SKIPPED;)
		if (head_fits(&s->frames[s->head], &calls[n - 1 - j], s->head_is_pc)) {
			*skipped_to = j;
			return 1;
		}
	return 0;
}

int pc_render(const struct pc_sample *s, const struct pc_call *calls, size_t n, size_t j, char **out,
	      size_t *out_len)
{
	const struct pc_frame *model = NULL;
	size_t a = pc_first_slot(s, n), t = j;
	FILE *o = open_memstream(out, out_len);

	if (!o)
		return -1;
	for (size_t i = 0; i < s->n_frames; i++) {
		const struct pc_frame *f = &s->frames[i];
		if (!f->tramp) {
			fprintf(o, "%.*s\n", (int)f->len, f->line);
			continue;
		}
		model = f;
		for (size_t upto = i == s->first ? a : t; t <= upto && t < n; t++) {
			const struct pc_call *c = &calls[n - 1 - t];
			/* the outermost call's unknown caller at the very end: the chain just ends */
			if (!c->caller && t + 1 == n && !s->trailing)
				continue;
			put_frame(o, f, c->caller, c->caller_dso, c->caller_addr, c->caller_off);
		}
	}
	/* the walk stopped at a swapped return address: the rest from the trace */
	if (!s->trailing)
		for (; t < n; t++) {
			const struct pc_call *c = &calls[n - 1 - t];
			if (!c->caller && t + 1 == n)
				break;
			put_frame(o, model, c->caller, c->caller_dso, c->caller_addr, c->caller_off);
		}
	if (fclose(o)) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int pc_rewrite(const struct pc_sample *s, const struct pc_call *calls, size_t n, char **out, size_t *out_len)
{
	size_t j;
	int r = pc_fit(s, calls, n, &j);
	if (r != 1)
		return r;
	return pc_render(s, calls, n, j, out, out_len) ? 0 : 1;
}

uint64_t pc_key(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

int pc_match_state(struct pc_match *m, const struct pc_sample *s, const struct pc_call *calls, size_t n,
		   uint64_t key, uint64_t since, uint64_t upto)
{
	return pc_match_state_by(m, pc_render, s, calls, n, key, since, upto);
}

int pc_match_state_by(struct pc_match *m, pc_render_fn render, const struct pc_sample *s,
		      const struct pc_call *calls, size_t n, uint64_t key, uint64_t since, uint64_t upto)
{
	uint64_t dist = s->ns < since ? since - s->ns : s->ns > upto ? s->ns - upto : 0;
	size_t skipped_to;

	if (!n || (m->text && m->dist == 0 && dist > 0))
		return 0;               /* the state at the sample's very time fitted already */
	if (pc_fit(s, calls, n, &skipped_to) != 1)
		return 0;
	key = pc_key(key, skipped_to);
	int same = m->text && m->key == key;
	if (!m->text || (!same && dist == 0)) {
		/* the first that fits, or the one at the very time: its frames */
		char *text;
		size_t len;
		if (render(s, calls, n, skipped_to, &text, &len))
			return -1;
		free(m->text);
		m->text = text;
		m->len = len;
		m->key = key;
		m->dist = dist;
		m->conflict = 0;
	} else if (same) {
		if (dist < m->dist)
			m->dist = dist;
		if (dist == 0)
			m->conflict = 0;
	} else if (m->dist > 0) {
		m->conflict = 1;        /* two states near the sample fit and differ */
	}
	return 0;
}
