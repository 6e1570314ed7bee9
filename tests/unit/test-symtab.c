/*
 * test-symtab.c - the saved symbol table (symbols/symtab.c): what is added
 * comes back from the file image exactly (names, sizes, GOT slots, both kinds
 * of lines, duplicates dropped with the first kept), lookups answer inside a
 * function and nowhere else, and a damaged image is refused with a reason:
 * every truncation and every single-byte change either decodes to a table
 * whose lookups stay in bounds or fails, never crashes (ASan in make check).
 */
#include <stdlib.h>
#include <string.h>
#include "symbols/symtab.h"
#include "tests/unit/check.h"

static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static uint8_t *sample(size_t *len)
{
	struct symtab st;
	uint8_t *buf;

	symtab_init(&st, bid, sizeof(bid));
	st.path = (uint32_t)symtab_string(&st, "/usr/bin/prog");
	symtab_add_func(&st, 0x2000, 0x40, "_ZN3geo3BoxIiE4areaEv");
	symtab_add_func(&st, 0x1000, 0x10, "main");
	symtab_add_func(&st, 0x1000, 0x99, "main_alias");     /* a duplicate: the first stays */
	symtab_add_func(&st, 0x3000, 0, "sizeless");
	symtab_add_slot(&st, 0x4018, "qsort");
	symtab_add_line(&st, 0x1000, 1, "prog.c", 12);
	symtab_add_line(&st, 0x1000, 0, "prog.c", 13);          /* same place, other kind */
	symtab_add_line(&st, 0x2004, 0, "box.h", 40);
	symtab_add_line(&st, 0x2004, 0, "other.h", 1);          /* duplicate: dropped */
	symtab_add_line(&st, 0x3000, 1, NULL, 0);               /* looked up, nothing found */
	buf = symtab_encode(&st, len);
	symtab_release(&st);
	return buf;
}

static void lookups(const struct symtab *st)
{
	uint64_t start = 0;
	const char *file = NULL, *name;
	int line = 0;

	CHECK(st->build_id_len == sizeof(bid) && !memcmp(st->build_id, bid, sizeof(bid)), "build-id");
	CHECK(!strcmp(symtab_path(st), "/usr/bin/prog"), "path %s", symtab_path(st));
	CHECK(st->n_funcs == 3 && st->n_slots == 1 && st->n_lines == 4, "%zu %zu %zu", st->n_funcs, st->n_slots,
	      st->n_lines);
	name = symtab_func_at(st, 0x1000, &start, NULL);
	CHECK(name && !strcmp(name, "main") && start == 0x1000, "main at its start: %s", name ? name : "-");
	name = symtab_func_at(st, 0x100f, &start, NULL);
	CHECK(name && !strcmp(name, "main"), "main's last byte");
	CHECK(!symtab_func_at(st, 0x1010, &start, NULL), "past main's size: nothing");
	CHECK(!symtab_func_at(st, 0xfff, &start, NULL), "before every function: nothing");
	name = symtab_func_at(st, 0x203f, &start, NULL);
	CHECK(name && !strcmp(name, "_ZN3geo3BoxIiE4areaEv") && start == 0x2000, "inside area");
	name = symtab_func_at(st, 0x3000, &start, NULL);
	CHECK(name && !strcmp(name, "sizeless"), "a sizeless symbol covers its address");
	CHECK(!symtab_func_at(st, 0x3001, &start, NULL), "and only that");
	CHECK(!symtab_func_at(st, UINT64_MAX, &start, NULL), "far past the end");
	name = symtab_slot_at(st, 0x4018);
	CHECK(name && !strcmp(name, "qsort"), "slot");
	CHECK(!symtab_slot_at(st, 0x4010), "not a slot");
	CHECK(!symtab_line_at(st, 0x1000, 1, &file, &line) && !strcmp(file, "prog.c") && line == 12, "func line");
	CHECK(!symtab_line_at(st, 0x1000, 0, &file, &line) && line == 13, "addr line at the same place");
	CHECK(!symtab_line_at(st, 0x2004, 0, &file, &line) && !strcmp(file, "box.h") && line == 40,
	      "first of two kept: %s", file);
	CHECK(symtab_line_at(st, 0x2004, 1, &file, &line), "no func line there");
	CHECK(symtab_line_at(st, 0x3000, 1, &file, &line), "a line looked up but unknown");
}

static void roundtrip(void)
{
	size_t len;
	uint8_t *buf = sample(&len);
	struct symtab st;
	char err[256];

	CHECK(buf && len > SYMTAB_HEADER_SIZE, "encoded");
	CHECK(!symtab_decode(&st, buf, len, err, sizeof(err)), "decodes: %s", err);
	lookups(&st);
	symtab_release(&st);
	free(buf);
}

/* a decoded table, whatever its content, is looked up within its arrays */
static void probe(const struct symtab *st)
{
	static const uint64_t at[] = { 0, 0xfff, 0x1000, 0x100f, 0x2004, 0x3000, 0x4018, UINT64_MAX };
	volatile size_t sink = 0;

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		uint64_t start;
		const char *file, *name = symtab_func_at(st, at[i], &start, NULL);
		int line;
		if (name)
			sink += strlen(name);
		if ((name = symtab_slot_at(st, at[i])))
			sink += strlen(name);
		if (!symtab_line_at(st, at[i], 1, &file, &line) || !symtab_line_at(st, at[i], 0, &file, &line))
			sink += strlen(file);
	}
	sink += strlen(symtab_path(st));
	(void)sink;
}

static void damaged(void)
{
	size_t len, refused = 0, n = 0;
	uint8_t *buf = sample(&len), *copy = malloc(len + 1);
	struct symtab st;
	char err[256];

	for (size_t cut = 0; cut < len; cut++) {
		memcpy(copy, buf, cut);
		err[0] = 0;
		CHECK(symtab_decode(&st, copy, cut, err, sizeof(err)) == -1 && err[0], "cut at %zu decodes", cut);
	}
	memcpy(copy, buf, len);
	copy[len] = 0;
	CHECK(symtab_decode(&st, copy, len + 1, err, sizeof(err)) == -1 && strstr(err, "size"), "a byte too many: %s",
	      err);
	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(copy, buf, len);
			copy[i] ^= (uint8_t)(1 << bit);
			n++;
			if (symtab_decode(&st, copy, len, err, sizeof(err))) {
				refused++;
				continue;
			}
			probe(&st);
			symtab_release(&st);
		}
	CHECK(refused > 0 && refused < n, "%zu of %zu flips refused", refused, n);
	memcpy(copy, buf, len);
	copy[8] = 2;
	CHECK(symtab_decode(&st, copy, len, err, sizeof(err)) == -1 && strstr(err, "version 2"), "version: %s", err);
	free(copy);
	free(buf);
}

int main(void)
{
	roundtrip();
	damaged();
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
