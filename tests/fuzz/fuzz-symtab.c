/*
 * fuzz-symtab.c - libFuzzer target for the saved symbol table reader
 * (symbols/symtab.c): the input is one DIR/symtab/<build-id>.sym image.  If
 * it decodes, every lookup runs at addresses around each entry, so a bad
 * offset or an unsorted array shows up under ASan/UBSan.  `make fuzz-smoke`
 * seeds it with the tables of a real trace (tests/fuzz/make-corpus.py
 * --symtab).
 */
#include <stdint.h>
#include <string.h>
#include "symbols/symtab.h"

static volatile size_t sink;

const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

static void probe(const struct symtab *st, uint64_t a)
{
	uint64_t start;
	const char *file, *name = symtab_func_at(st, a, &start, NULL);
	int line;

	if (name)
		sink += strlen(name) + (size_t)start;
	if ((name = symtab_slot_at(st, a)))
		sink += strlen(name);
	if (!symtab_line_at(st, a, 1, &file, &line))
		sink += strlen(file) + (size_t)line;
	if (!symtab_line_at(st, a, 0, &file, &line))
		sink += strlen(file) + (size_t)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symtab st;
	char err[256];

	if (symtab_decode(&st, data, size, err, sizeof(err))) {
		sink += strlen(err);
		return 0;
	}
	sink += strlen(symtab_path(&st));
	for (size_t i = 0; i < st.n_funcs; i++) {
		probe(&st, st.funcs[i].vaddr);
		probe(&st, st.funcs[i].vaddr - 1);
		probe(&st, st.funcs[i].vaddr + st.funcs[i].size);
	}
	for (size_t i = 0; i < st.n_slots; i++)
		probe(&st, st.slots[i].vaddr);
	for (size_t i = 0; i < st.n_lines; i++)
		probe(&st, st.lines[i].vaddr);
	probe(&st, 0);
	probe(&st, UINT64_MAX);
	symtab_release(&st);
	return 0;
}
