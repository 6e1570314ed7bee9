/*
 * symbols.h - addresses to names, offline, with elfutils libdwfl.
 *
 * The tool registers each distinct module file it meets in a trace (path +
 * the build-id the runtime read from memory) and then asks for names by
 * file-relative virtual address (runtime address - load bias).  Results are
 * cached: each distinct (module, address) is looked up in DWARF once.
 *
 * Build-ids are checked: when the file on disk (or the debug file found for
 * it) does not carry the recorded build-id, names from it would be wrong, so
 * lookups answer "module+0xoffset" and symbols_module_warning() says why.
 */
#ifndef FNT_SYMBOLS_H
#define FNT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct symbols;

struct symbols_options {
	const char *const *debug_dirs;  /* extra roots searched for debug files (--debug-dir), may be NULL */
	size_t n_debug_dirs;
	const char *const *prefix_map;  /* "OLD=NEW" path substitutions (--prefix-map), may be NULL */
	size_t n_prefix_map;
	/* directories of saved symbol tables (DIR/symtab of the trace, symtab.h),
	 * used for a module whose file is gone or was rebuilt; may be NULL */
	const char *const *symtab_dirs;
	size_t n_symtab_dirs;
	int no_demangle;                /* keep mangled C++ names (== demangle SYMBOLS_DEMANGLE_NO) */
	int demangle;                   /* enum symbols_demangle: what short_name holds */
	/* when the recording started (CLOCK_REALTIME ns; 0: unknown): a module
	 * without a build-id modified after it gets a warning */
	uint64_t trace_start_ns;
};

/* --demangle: the form of sym_func.short_name for C++ functions
 * (sym_func.name is the full signature but with SYMBOLS_DEMANGLE_NO) */
enum symbols_demangle {
	SYMBOLS_DEMANGLE_SHORT,         /* default: "geo::Box<int>::area", std::string */
	SYMBOLS_DEMANGLE_FULL,          /* "geo::Box<int>::area() const" */
	SYMBOLS_DEMANGLE_SIMPLE,        /* "geo::Box::area" */
	SYMBOLS_DEMANGLE_NO,            /* "_ZNK3geo3BoxIiE4areaEv" */
};

struct sym_func {
	const char *name;      /* full demangled name ("int ns::foo<int>(int, char const*)"),
	                          or "module+0xoffset"; owned by struct symbols */
	const char *short_name;/* the same without return type and parameter list
	                          ("ns::foo<int>"), for replay lines; == name for C */
	const char *structor;  /* a constructor's or destructor's kind ("complete",
	                          "base", "deleting"...), which the names leave out;
	                          or NULL */
	const char *sig_name;  /* name without the return type a template function's
	                          carries ("ns::foo<int>(int, char const*)"): what
	                          globs are matched against; == name for most */
	const char *mangled;   /* a C++ function's name as the symbol table spells it
	                          ("_ZN2ns3fooIiEEiiPKc"), from which globs are also
	                          matched in every form record matches; NULL for others */
	uint64_t start;        /* file vaddr of the function start (== the looked-up address for hook addresses) */
	uint64_t size;         /* the symbol's size (st_size), 0 when unknown or without a symbol */
	const char *file;      /* source file of the function's first line, or NULL without DWARF */
	int line;              /* its line, 0 if unknown */
};

struct symbols *symbols_new(const struct symbols_options *opts);
void symbols_free(struct symbols *syms);

/* Register a module file; same path + build-id returns the same handle.
 * Never fails for a missing file: lookups then answer "basename+0xoff".
 * Returns a handle >= 0. */
int symbols_add_module(struct symbols *syms, const char *path,
		       const uint8_t *build_id, size_t build_id_len);

/* NULL, or a one-line explanation of why names from this module cannot be
 * trusted ("'prog' was rebuilt since it was traced (build-id ...)") or are
 * missing ("cannot open '...': No such file or directory"). */
const char *symbols_module_warning(struct symbols *syms, int module);

/* The path actually used for the module (after prefix-map), for info. */
const char *symbols_module_path(struct symbols *syms, int module);

/* The function containing vaddr.  with_line: also fill file/line (costs a
 * DWARF line lookup, cached).  Returns 0 if a symbol was found, -1 if only the
 * module+0xoffset fallback name is available (out is filled either way). */
int symbols_func(struct symbols *syms, int module, uint64_t vaddr, int with_line,
		 struct sym_func *out);

/* file:line of an arbitrary code address (a call site), cached.
 * Returns 0 and fills file and line, or -1. */
int symbols_srcline(struct symbols *syms, int module, uint64_t vaddr,
		    const char **file, int *line);

/* The functions inlined at vaddr, outermost first: the symbol name of each
 * (DW_AT_linkage_name, else DW_AT_name, of the inlined subroutines whose
 * code covers it, inside the function that holds it), at most max of
 * them.  Owned by the module's DWARF.  0 without DWARF or inlining.
 * Asked of a landing pad: at its first two instructions with a line (a
 * pad's first ones have line 0), the shorter of the two chains (a pad's
 * cleanups come before the dispatch to the catching function's catch). */
size_t symbols_inline_names(struct symbols *syms, int module, uint64_t vaddr, const char **names, size_t max);

/* 1 if the code at vaddr was compiled by gcc (its compile unit's
 * DW_AT_producer says "GNU "), 0 if by another compiler or unknown (no
 * DWARF).  gcc's -finstrument-functions calls the exit hook of every
 * frame an exception unwinds, inlined ones included; clang's does not. */
int symbols_built_by_gcc(struct symbols *syms, int module, uint64_t vaddr);

/* The file the module is read from (NULL when it cannot be used) and, in
 * *debug_file, its separate debug file if one was found (else NULL). */
const char *symbols_module_files(struct symbols *syms, int module, const char **debug_file);

/* 1 if the module's DWARF (its own, or a separate debug file's) was found
 * and may be used: lines, inline chains, argument types; else 0. */
int symbols_module_has_dwarf(struct symbols *syms, int module);

/* ---- record: the table saved in the trace (symbols/symtab.h) ---- */
struct symtab;
/* Build the saved table of a module whose file matches its build-id: every
 * function symbol, the GOT slots among funcs, the own line of each function
 * in funcs (file vaddrs of the functions that appear) and the line of each
 * address in addrs (call sites and stack frames, as looked up), plus the
 * lines of old (a table saved earlier for that build-id, may be NULL).
 * funcs NULL: the functions that appear are not known; every GOT slot is
 * saved, and no function's line. 
 * 0, or -1 when the file cannot be used (symbols_module_warning says why). */
int symbols_save_table(struct symbols *syms, int module, const uint64_t *funcs, size_t n_funcs,
		       const uint64_t *addrs, size_t n_addrs, const struct symtab *old, struct symtab *out);

#endif
