/*
 * safe-debug.h - libdwfl's debug-file search, made safe to run on module
 * paths that a trace names (symbols/safe-debug.c).
 */
#ifndef FNT_SAFE_DEBUG_H
#define FNT_SAFE_DEBUG_H

#include <elfutils/libdwfl.h>

/* One per module, its Dwfl_Module's userdata: the search path libdwfl
 * reads, and what was refused (NULL: nothing). */
struct debug_search {
	const char *path;       /* the debuginfo_path string of the callbacks */
	char *refused;          /* malloc'd one-line warning, or NULL */
	int dwarf_refused;      /* safe_dwarf_check found a file libdw must not open */
};

/* A find_debuginfo callback: libdwfl's standard search for the debug file
 * and for the dwz alt file, opening only regular files (no FIFO waited on,
 * no device opened) and handing libdwfl the descriptor it checked.  A FIFO
 * or device on the way is skipped and named in ds->refused. */
int safe_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name);

/* Before the module's DWARF is first used: 1 if libdw could open by itself
 * (the alt file it looks for when none was found, a skeleton unit's .dwo)
 * something that is not a regular file; the DWARF must not be used then,
 * and ds->refused says why.  Loads the DWARF (the searches above run). */
int safe_dwarf_check(struct debug_search *ds, Dwfl_Module *mod, const char *modname);

/* printf into a new string (free() it), NULL without memory */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
