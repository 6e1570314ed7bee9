/*
 * mixcore.h - the "realistic mix", shared by mix.c and mt.c: an open-address
 * hash table with string keys, qsort with a comparison callback, string work,
 * a few tiny functions and a couple of larger ones.  Deterministic: the same
 * (n, seed) always makes the same calls.  Everything is thread-safe (no
 * globals), so mt.c runs it on several threads at once.
 */
#include <string.h>
#include "bench.h"

struct rng {
	uint64_t s;
};

NOINLINE uint64_t rng_next(struct rng *r)
{
	uint64_t x = r->s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	r->s = x;
	return x;
}

/* "k" followed by base-36 digits of v, NUL-terminated; returns the length */
NOINLINE size_t make_key(char *buf, uint64_t v)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	char tmp[16];
	size_t n = 0, len = 0;

	do {
		tmp[n++] = digits[v % 36];
		v /= 36;
	} while (v);
	buf[len++] = 'k';
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = 0;
	return len;
}

NOINLINE uint32_t hash_str(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

NOINLINE int key_eq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

struct entry {
	char key[20];
	uint32_t hash;
	uint64_t val;
};

struct table {
	struct entry *slot;
	size_t mask, used;
};

NOINLINE void table_init(struct table *t, size_t want)
{
	size_t cap = 16;

	while (cap < want * 2)
		cap <<= 1;
	t->slot = calloc(cap, sizeof *t->slot);
	if (!t->slot)
		abort();
	t->mask = cap - 1;
	t->used = 0;
}

/* the slot holding key, or the empty slot where it would go */
NOINLINE struct entry *table_find(struct table *t, const char *key, size_t len)
{
	uint32_t h = hash_str(key, len);
	size_t i = h & t->mask;

	for (;;) {
		struct entry *e = &t->slot[i];

		if (!e->key[0])
			return e;
		if (e->hash == h && key_eq(e->key, key))
			return e;
		i = (i + 1) & t->mask;
	}
}

NOINLINE void table_put(struct table *t, const char *key, size_t len, uint64_t val)
{
	struct entry *e = table_find(t, key, len);

	if (!e->key[0]) {
		memcpy(e->key, key, len + 1);
		e->hash = hash_str(key, len);
		t->used++;
	}
	e->val += val;
}

NOINLINE int table_get(struct table *t, const char *key, size_t len, uint64_t *val)
{
	struct entry *e = table_find(t, key, len);

	if (!e->key[0])
		return 0;
	*val = e->val;
	return 1;
}

struct rec {
	uint32_t prio;
	char name[12];
};

NOINLINE uint32_t rec_prio(const struct rec *r)
{
	return r->prio;
}

NOINLINE int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	uint32_t px = rec_prio(x), py = rec_prio(y);

	if (px != py)
		return px < py ? -1 : 1;
	return strcmp(x->name, y->name);
}

NOINLINE void str_reverse(char *s, size_t n)
{
	for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
		char c = s[i];
		s[i] = s[j];
		s[j] = c;
	}
}

NOINLINE unsigned count_vowels(const char *s)
{
	unsigned n = 0;

	for (; *s; s++)
		n += strchr("aeiou", *s) != NULL;
	return n;
}

/* a larger function: tokenise a text buffer into words and numbers, fold
 * them into a digest with a few kinds of branches */
NOINLINE uint64_t digest_text(const char *s, size_t n)
{
	uint64_t d = 1469598103934665603ull, num = 0;
	unsigned words = 0, numbers = 0, longest = 0, cur = 0;
	int in_num = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c >= '0' && c <= '9') {
			num = num * 10 + (c - '0');
			in_num = 1;
		} else {
			if (in_num) {
				d = (d ^ num) * 1099511628211ull;
				numbers++;
				num = 0;
				in_num = 0;
			}
			if ((c | 32) >= 'a' && (c | 32) <= 'z') {
				cur++;
				d = (d ^ (c | 32)) * 1099511628211ull;
			} else if (cur) {
				words++;
				if (cur > longest)
					longest = cur;
				cur = 0;
			}
		}
	}
	return d ^ ((uint64_t)words << 40) ^ ((uint64_t)numbers << 20) ^ longest;
}

/* fill buf with n bytes of pseudo-text */
NOINLINE void make_text(struct rng *r, char *buf, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t x = rng_next(r);

		for (size_t j = 0; j < 8 && i + j < n; j++, x >>= 8) {
			unsigned v = x & 0xff;
			buf[i + j] = v < 150 ? 'a' + v % 26 : v < 200 ? '0' + v % 10 : v < 240 ? ' ' : '.';
		}
	}
}

#define SORT_BLOCK 64
#define TEXT_LEN 192

/* n items: n inserts, n lookups, n string jobs, n records sorted in blocks,
 * one text digest every 32 items */
NOINLINE uint64_t run_mix(size_t n, uint64_t seed)
{
	struct rng r = { seed | 1 };
	struct table t;
	struct rec *recs = malloc(SORT_BLOCK * sizeof *recs);
	char key[24], text[TEXT_LEN];
	uint64_t sum = 0, v;
	size_t len;

	if (!recs)
		abort();
	table_init(&t, n);
	for (size_t i = 0; i < n; i++) {
		len = make_key(key, rng_next(&r) % (n * 2 + 1));
		table_put(&t, key, len, i);
	}
	for (size_t i = 0; i < n; i++) {
		len = make_key(key, rng_next(&r) % (n * 2 + 1));
		if (table_get(&t, key, len, &v))
			sum += v;
		str_reverse(key, len);
		sum += count_vowels(key) + hash_str(key, len);
		recs[i % SORT_BLOCK].prio = rng_next(&r) % 1000;
		memcpy(recs[i % SORT_BLOCK].name, key, 12);
		recs[i % SORT_BLOCK].name[11] = 0;
		if (i % SORT_BLOCK == SORT_BLOCK - 1) {
			qsort(recs, SORT_BLOCK, sizeof *recs, rec_cmp);
			sum += recs[0].prio + recs[SORT_BLOCK - 1].prio;
		}
		if (i % 32 == 31) {
			make_text(&r, text, TEXT_LEN);
			sum ^= digest_text(text, TEXT_LEN);
		}
	}
	sum += t.used;
	free(t.slot);
	free(recs);
	return sum;
}
