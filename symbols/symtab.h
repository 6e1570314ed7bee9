/*
 * symtab.h - the symbol tables `fntrace record` saves into a trace
 * directory (DIR/symtab/<build-id>.sym), so that names and file:line stay
 * right after the module is rebuilt or deleted.  doc/format.md ("Saved
 * symbol tables") is the spec; symbols/symtab.c encodes, checks and looks
 * up.  No libdw here: the table is plain data.
 *
 * Ownership: a struct symtab owns its arrays and strings; symtab_release()
 * frees them.  Strings handed out by lookups live as long as the table.
 */
#ifndef FNT_SYMTAB_H
#define FNT_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#define SYMTAB_MAGIC "FNTSYMS1"
#define SYMTAB_VERSION 1
#define SYMTAB_HEADER_SIZE 80
#define SYMTAB_MAX_FILE (256u << 20)    /* a reader refuses larger files */
#define SYMTAB_LINE_FUNC 0x80000000u    /* symtab_line.line: the function's own line */

struct symtab_func {                    /* a function symbol: [vaddr, vaddr + size) */
	uint64_t vaddr;
	uint32_t size;
	uint32_t name;                  /* offset in strings: the symbol name, mangled */
};

struct symtab_slot {                    /* a GOT slot a library call is recorded by */
	uint64_t vaddr;
	uint32_t name;                  /* the relocation's symbol name */
	uint32_t zero;
};

struct symtab_line {
	uint64_t vaddr;
	uint32_t file;                  /* offset in strings */
	uint32_t line;                  /* | SYMTAB_LINE_FUNC: of the function starting at vaddr */
};

struct symtab {
	uint8_t build_id[32];
	size_t build_id_len;
	uint32_t path;                  /* offset in strings: the module's path when it was saved */
	struct symtab_func *funcs;      /* sorted by vaddr, distinct */
	size_t n_funcs, cap_funcs;
	struct symtab_slot *slots;      /* sorted by vaddr, distinct */
	size_t n_slots, cap_slots;
	struct symtab_line *lines;      /* sorted by (vaddr, line & SYMTAB_LINE_FUNC), distinct */
	size_t n_lines, cap_lines;
	char *strings;                  /* NUL-terminated strings back to back; offset 0 is "" */
	size_t strings_len, cap_strings;
	uint32_t *str_hash;             /* writer: offset + 1 by string hash, 0 empty */
	size_t str_hash_size, str_count;
};

/* ---- writing: add in any order, then symtab_encode sorts and removes duplicates ---- */
void symtab_init(struct symtab *st, const uint8_t *build_id, size_t build_id_len);
/* the offset of s in the strings (added once); -1 without memory or past 4 GB */
int64_t symtab_string(struct symtab *st, const char *s);
int symtab_add_func(struct symtab *st, uint64_t vaddr, uint64_t size, const char *name);
int symtab_add_slot(struct symtab *st, uint64_t vaddr, const char *name);
/* is_func: the line of the function starting at vaddr (else of the instruction at vaddr) */
int symtab_add_line(struct symtab *st, uint64_t vaddr, int is_func, const char *file, int line);
/* the file image (malloc'd, *len bytes), or NULL without memory; sorts st */
uint8_t *symtab_encode(struct symtab *st, size_t *len);

/* ---- reading ---- */
/* Check and copy a file image.  0, or -1 with a one-line reason in err. */
int symtab_decode(struct symtab *st, const uint8_t *buf, size_t len, char *err, size_t errlen);
/* Read DIR/<hex build-id>.sym (a regular file, not followed through a link).
 * 0; 1 when there is no such file; -1 with a reason in err (corrupt, or for
 * another build-id). */
int symtab_load(struct symtab *st, const char *dir, const uint8_t *build_id, size_t build_id_len,
		char *err, size_t errlen);
void symtab_release(struct symtab *st);

/* "0123abcd....sym" for a build-id into buf (at least 2 * 32 + 5 bytes) */
void symtab_file_name(char *buf, size_t len, const uint8_t *build_id, size_t build_id_len);

/* The function containing vaddr: its name (mangled), start and size (size
 * may be NULL); NULL if none. */
const char *symtab_func_at(const struct symtab *st, uint64_t vaddr, uint64_t *start, uint64_t *size);
/* The name a GOT slot at exactly vaddr is recorded under, or NULL. */
const char *symtab_slot_at(const struct symtab *st, uint64_t vaddr);
/* file:line saved for vaddr (is_func: the function's own line); 0 or -1. */
int symtab_line_at(const struct symtab *st, uint64_t vaddr, int is_func, const char **file, int *line);
const char *symtab_path(const struct symtab *st);

#endif
