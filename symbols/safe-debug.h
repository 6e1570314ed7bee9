/*
 * safe-debug.h - libdwfl's debug-file search, made safe to run on module
 * paths that a trace names (symbols/safe-debug.c).
 */
#ifndef FNT_SAFE_DEBUG_H
#define FNT_SAFE_DEBUG_H

#include <elfutils/libdwfl.h>

/* One per module, its Dwfl_Module's userdata: the search path libdwfl
 * reads, and why the search was refused (NULL: it was not). */
struct debug_search {
	const char *path;       /* the debuginfo_path string of the callbacks */
	char *refused;          /* malloc'd one-line warning, or NULL */
};

/* A find_debuginfo callback: dwfl_standard_find_debuginfo, run only when
 * every file it could open is a regular file or absent. */
int safe_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name);

#endif
