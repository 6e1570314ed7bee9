/*
 * symtab.c - the saved symbol table of one module (symbols/symtab.h,
 * doc/format.md "Saved symbol tables"): built by `record`, read by the
 * symbolizer when the module file is gone or was rebuilt.
 *
 * The file is three arrays of 16-byte records (functions, GOT slots, lines)
 * and a string pool, each record pointing into the pool by offset.  Fixed
 * sizes keep the checks simple: the reader computes every array's place from
 * the header with 64-bit arithmetic, compares the total with the file's size,
 * checks that every offset lands in the pool (which must end with a NUL) and
 * that every array is sorted, and only then copies the arrays out.  A table
 * that fails any check is refused as a whole, with a reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/safeio.h"
#include "symbols/symtab.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

void symtab_init(struct symtab *st, const uint8_t *build_id, size_t build_id_len)
{
	memset(st, 0, sizeof(*st));
	if (build_id_len > sizeof(st->build_id))
		build_id_len = sizeof(st->build_id);
	if (build_id_len)
		memcpy(st->build_id, build_id, build_id_len);
	st->build_id_len = build_id_len;
}

void symtab_release(struct symtab *st)
{
	free(st->funcs);
	free(st->slots);
	free(st->lines);
	free(st->strings);
	free(st->str_hash);
	memset(st, 0, sizeof(*st));
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *np;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 256;
	np = realloc(*p, ncap * size);
	if (!np)
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

static size_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return (size_t)(h ^ (h >> 31));
}

static int rehash(struct symtab *st, size_t nsize)
{
	uint32_t *nh = calloc(nsize, sizeof(*nh));
	if (!nh)
		return -1;
	for (size_t k = 0; k < st->str_hash_size; k++) {
		uint32_t o = st->str_hash[k];
		if (!o)
			continue;
		size_t i = str_hash(st->strings + o - 1) & (nsize - 1);
		while (nh[i])
			i = (i + 1) & (nsize - 1);
		nh[i] = o;
	}
	free(st->str_hash);
	st->str_hash = nh;
	st->str_hash_size = nsize;
	return 0;
}

int64_t symtab_string(struct symtab *st, const char *s)
{
	size_t len = strlen(s) + 1, i, mask;

	if (!st->strings_len) {         /* offset 0 is always "" */
		if (grow((void **)&st->strings, &st->cap_strings, 1, 1))
			return -1;
		st->strings[0] = 0;
		st->strings_len = 1;
	}
	if (!*s)
		return 0;
	if (2 * (st->str_count + 1) > st->str_hash_size && rehash(st, st->str_hash_size ? 2 * st->str_hash_size : 1024))
		return -1;
	mask = st->str_hash_size - 1;
	for (i = str_hash(s) & mask; st->str_hash[i]; i = (i + 1) & mask)
		if (!strcmp(st->strings + st->str_hash[i] - 1, s))
			return st->str_hash[i] - 1;
	if (st->strings_len + len >= UINT32_MAX)
		return -1;
	while (st->strings_len + len > st->cap_strings) {
		size_t ncap = st->cap_strings ? 2 * st->cap_strings : 4096;
		char *ns = realloc(st->strings, ncap);
		if (!ns)
			return -1;
		st->strings = ns;
		st->cap_strings = ncap;
	}
	memcpy(st->strings + st->strings_len, s, len);
	st->str_hash[i] = (uint32_t)st->strings_len + 1;
	st->strings_len += len;
	st->str_count++;
	return st->str_hash[i] - 1;
}

int symtab_add_func(struct symtab *st, uint64_t vaddr, uint64_t size, const char *name)
{
	int64_t n = symtab_string(st, name);

	if (n < 0 || grow((void **)&st->funcs, &st->cap_funcs, st->n_funcs, sizeof(*st->funcs)))
		return -1;
	st->funcs[st->n_funcs].vaddr = vaddr;
	st->funcs[st->n_funcs].size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	st->funcs[st->n_funcs++].name = (uint32_t)n;
	return 0;
}

int symtab_add_slot(struct symtab *st, uint64_t vaddr, const char *name)
{
	int64_t n = symtab_string(st, name);

	if (n < 0 || grow((void **)&st->slots, &st->cap_slots, st->n_slots, sizeof(*st->slots)))
		return -1;
	st->slots[st->n_slots].vaddr = vaddr;
	st->slots[st->n_slots].zero = 0;
	st->slots[st->n_slots++].name = (uint32_t)n;
	return 0;
}

int symtab_add_line(struct symtab *st, uint64_t vaddr, int is_func, const char *file, int line)
{
	int64_t f = symtab_string(st, file ? file : "");

	if (f < 0 || line < 0 || grow((void **)&st->lines, &st->cap_lines, st->n_lines, sizeof(*st->lines)))
		return -1;
	st->lines[st->n_lines].vaddr = vaddr;
	st->lines[st->n_lines].file = (uint32_t)f;
	st->lines[st->n_lines++].line = ((uint32_t)line & ~SYMTAB_LINE_FUNC) | (is_func ? SYMTAB_LINE_FUNC : 0);
	return 0;
}

/* the records are sorted by (vaddr, kind) with the order they were added as
 * the last key, so that of two records for one place the first added stays */
struct order {
	uint64_t key;
	uint32_t kind;
	size_t index;
};

static int order_cmp(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* sort n records of size rsize at base by their first 8 bytes (and kind),
 * dropping duplicates; returns the new count, or n unchanged without memory */
static size_t sort_unique(void *base, size_t n, size_t rsize, uint32_t (*kind)(const void *))
{
	struct order *o;
	uint8_t *copy, *b = base;
	size_t out = 0;

	if (n < 2)
		return n;
	o = malloc(n * sizeof(*o));
	copy = malloc(n * rsize);
	if (!o || !copy) {
		free(o);
		free(copy);
		return n;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(&o[i].key, b + i * rsize, 8);
		o[i].kind = kind ? kind(b + i * rsize) : 0;
		o[i].index = i;
	}
	qsort(o, n, sizeof(*o), order_cmp);
	memcpy(copy, b, n * rsize);
	for (size_t i = 0; i < n; i++) {
		if (out && o[i].key == o[i - 1].key && o[i].kind == o[i - 1].kind)
			continue;
		memcpy(b + out++ * rsize, copy + o[i].index * rsize, rsize);
	}
	free(o);
	free(copy);
	return out;
}

static uint32_t line_kind(const void *r)
{
	return ((const struct symtab_line *)r)->line & SYMTAB_LINE_FUNC;
}

uint8_t *symtab_encode(struct symtab *st, size_t *len)
{
	uint8_t *buf, *p;
	size_t total;

	if (symtab_string(st, "") < 0)  /* the pool is never empty */
		return NULL;
	st->n_funcs = sort_unique(st->funcs, st->n_funcs, sizeof(*st->funcs), NULL);
	st->n_slots = sort_unique(st->slots, st->n_slots, sizeof(*st->slots), NULL);
	st->n_lines = sort_unique(st->lines, st->n_lines, sizeof(*st->lines), line_kind);
	total = SYMTAB_HEADER_SIZE + 16 * (st->n_funcs + st->n_slots + st->n_lines) + st->strings_len;
	buf = calloc(1, total);
	if (!buf)
		return NULL;
	memcpy(buf, SYMTAB_MAGIC, 8);
	put32(buf + 8, SYMTAB_VERSION);
	put32(buf + 12, SYMTAB_HEADER_SIZE);
	buf[16] = (uint8_t)st->build_id_len;
	memcpy(buf + 17, st->build_id, st->build_id_len);
	put32(buf + 52, st->path);
	put32(buf + 56, (uint32_t)st->n_funcs);
	put32(buf + 60, (uint32_t)st->n_slots);
	put32(buf + 64, (uint32_t)st->n_lines);
	put32(buf + 68, (uint32_t)st->strings_len);
	p = buf + SYMTAB_HEADER_SIZE;
	for (size_t i = 0; i < st->n_funcs; i++, p += 16) {
		put64(p, st->funcs[i].vaddr);
		put32(p + 8, st->funcs[i].size);
		put32(p + 12, st->funcs[i].name);
	}
	for (size_t i = 0; i < st->n_slots; i++, p += 16) {
		put64(p, st->slots[i].vaddr);
		put32(p + 8, st->slots[i].name);
	}
	for (size_t i = 0; i < st->n_lines; i++, p += 16) {
		put64(p, st->lines[i].vaddr);
		put32(p + 8, st->lines[i].file);
		put32(p + 12, st->lines[i].line);
	}
	memcpy(p, st->strings, st->strings_len);
	*len = total;
	return buf;
}

/* ---- reading ---- */

static int bad(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -1;
}

int symtab_decode(struct symtab *st, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	uint64_t nf, ns, nl, sl, total;
	const uint8_t *p;

	memset(st, 0, sizeof(*st));
	if (len < SYMTAB_HEADER_SIZE || memcmp(buf, SYMTAB_MAGIC, 8))
		return bad(err, errlen, "not a saved symbol table (no FNTSYMS1 header)");
	if (get32(buf + 8) != SYMTAB_VERSION) {
		snprintf(err, errlen, "saved symbol table of version %u, which this fntrace does not know",
			 get32(buf + 8));
		return -1;
	}
	if (get32(buf + 12) != SYMTAB_HEADER_SIZE || buf[16] > 32)
		return bad(err, errlen, "corrupt saved symbol table (bad header)");
	nf = get32(buf + 56);
	ns = get32(buf + 60);
	nl = get32(buf + 64);
	sl = get32(buf + 68);
	total = SYMTAB_HEADER_SIZE + 16 * (nf + ns + nl) + sl;      /* < 2^40: no overflow */
	if (total != len)
		return bad(err, errlen, "corrupt saved symbol table (its size does not match its counts)");
	p = buf + SYMTAB_HEADER_SIZE + 16 * (nf + ns + nl);
	if (!sl || p[sl - 1])
		return bad(err, errlen, "corrupt saved symbol table (its strings do not end with a NUL)");
	if (get32(buf + 52) >= sl)
		return bad(err, errlen, "corrupt saved symbol table (a string offset is out of range)");
	st->build_id_len = buf[16];
	memcpy(st->build_id, buf + 17, st->build_id_len);
	st->path = get32(buf + 52);
	st->funcs = malloc((nf ? nf : 1) * sizeof(*st->funcs));
	st->slots = malloc((ns ? ns : 1) * sizeof(*st->slots));
	st->lines = malloc((nl ? nl : 1) * sizeof(*st->lines));
	st->strings = malloc(sl);
	if (!st->funcs || !st->slots || !st->lines || !st->strings) {
		symtab_release(st);
		return bad(err, errlen, "out of memory reading a saved symbol table");
	}
	memcpy(st->strings, p, sl);
	st->strings_len = sl;
	p = buf + SYMTAB_HEADER_SIZE;
	for (uint64_t i = 0; i < nf; i++, p += 16) {
		struct symtab_func *f = &st->funcs[i];
		f->vaddr = get64(p);
		f->size = get32(p + 8);
		f->name = get32(p + 12);
		if (f->name >= sl || (i && f->vaddr <= f[-1].vaddr))
			goto corrupt;
	}
	for (uint64_t i = 0; i < ns; i++, p += 16) {
		struct symtab_slot *s = &st->slots[i];
		s->vaddr = get64(p);
		s->name = get32(p + 8);
		s->zero = 0;
		if (s->name >= sl || (i && s->vaddr <= s[-1].vaddr))
			goto corrupt;
	}
	for (uint64_t i = 0; i < nl; i++, p += 16) {
		struct symtab_line *l = &st->lines[i];
		l->vaddr = get64(p);
		l->file = get32(p + 8);
		l->line = get32(p + 12);
		if (l->file >= sl || (i && (l->vaddr < l[-1].vaddr ||
					    (l->vaddr == l[-1].vaddr && line_kind(l) <= line_kind(l - 1)))))
			goto corrupt;
	}
	st->n_funcs = nf;
	st->n_slots = ns;
	st->n_lines = nl;
	return 0;
corrupt:
	symtab_release(st);
	return bad(err, errlen, "corrupt saved symbol table (an entry is out of order or out of range)");
}

void symtab_file_name(char *buf, size_t len, const uint8_t *build_id, size_t build_id_len)
{
	size_t at = 0;

	if (build_id_len > 32)
		build_id_len = 32;
	for (size_t i = 0; i < build_id_len && at + 3 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%02x", build_id[i]);
	snprintf(buf + at, len - at, ".sym");
}

int symtab_load(struct symtab *st, const char *dir, const uint8_t *build_id, size_t build_id_len,
		char *err, size_t errlen)
{
	char name[80], path[4200];
	const char *why;
	size_t len;
	char *buf;
	int r;

	memset(st, 0, sizeof(*st));
	symtab_file_name(name, sizeof(name), build_id, build_id_len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	buf = fnt_read_small(path, FNT_OPEN_NOFOLLOW, SYMTAB_MAX_FILE, &len, &why);
	if (!buf) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "cannot read '%s': %s", path, why);
		return -1;
	}
	r = symtab_decode(st, (const uint8_t *)buf, len, err, errlen);
	free(buf);
	if (!r && (st->build_id_len != build_id_len || memcmp(st->build_id, build_id, build_id_len))) {
		symtab_release(st);
		r = -1;
		snprintf(err, errlen, "corrupt saved symbol table (it is for another build-id)");
	}
	if (r) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "'%s': %s", path, msg);
	}
	return r;
}

/* ---- lookups ---- */

const char *symtab_func_at(const struct symtab *st, uint64_t vaddr, uint64_t *start, uint64_t *size)
{
	size_t lo = 0, hi = st->n_funcs;

	while (lo < hi) {               /* the last function starting at or before vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (st->funcs[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct symtab_func *f = &st->funcs[lo - 1];
	if (vaddr - f->vaddr >= (f->size ? f->size : 1))
		return NULL;
	*start = f->vaddr;
	if (size)
		*size = f->size;
	return st->strings + f->name;
}

const char *symtab_slot_at(const struct symtab *st, uint64_t vaddr)
{
	size_t lo = 0, hi = st->n_slots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->slots[mid].vaddr == vaddr)
			return st->strings + st->slots[mid].name;
		if (st->slots[mid].vaddr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int symtab_line_at(const struct symtab *st, uint64_t vaddr, int is_func, const char **file, int *line)
{
	uint32_t kind = is_func ? SYMTAB_LINE_FUNC : 0;
	size_t lo = 0, hi = st->n_lines;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct symtab_line *l = &st->lines[mid];
		if (l->vaddr == vaddr && line_kind(l) == kind) {
			if (!st->strings[l->file] || !(l->line & ~SYMTAB_LINE_FUNC))
				return -1;
			*file = st->strings + l->file;
			*line = (int)(l->line & ~SYMTAB_LINE_FUNC);
			return 0;
		}
		if (l->vaddr < vaddr || (l->vaddr == vaddr && line_kind(l) < kind))
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

const char *symtab_path(const struct symtab *st)
{
	return st->strings_len ? st->strings + st->path : "";
}
