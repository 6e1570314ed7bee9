/*
 * safe-debug.c - the debug-file search for modules that a trace names.
 *
 * libdwfl's standard find_debuginfo opens candidate files with a plain
 * open(): a FIFO named prog.debug (or .build-id/xx/yy.debug) blocks the
 * reader for ever, and a device would be opened.  Rather than rewrite the
 * search (and its build-id and CRC validation), this callback lists every
 * path the search may open, as libdwfl.h documents it, stats each one, and
 * runs the standard search only when each is a regular file or absent.
 * Otherwise the module keeps the symbols of its own file and says why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "symbols/safe-debug.h"

static const char *kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" : "not a regular file";
}

/* 1 if path exists and is not a regular file (the search must not run) */
static int refuse(struct debug_search *ds, const char *modname, const char *path)
{
	struct stat st;
	if (stat(path, &st) || S_ISREG(st.st_mode))
		return 0;
	free(ds->refused);
	if (asprintf(&ds->refused, "'%s' is %s: debug information for '%s' not searched (its own symbols are used)",
		     path, kind(st.st_mode), modname) < 0)
		ds->refused = NULL;
	return 1;
}

static int refuse_fmt(struct debug_search *ds, const char *modname, const char *fmt, const char *a,
		      const char *b, const char *c)
{
	char *path;
	int r;
	if (asprintf(&path, fmt, a, b, c) < 0)
		return 0;
	r = refuse(ds, modname, path);
	free(path);
	return r;
}

/* every candidate under one element of the search path; 1 if one is refused */
static int check_element(struct debug_search *ds, const char *modname, const char *elem, const char *hex,
			 const char *dir, const char *name)
{
	if (elem[0] == '/' && hex) {
		char xx[3] = { hex[0], hex[1], 0 };
		if (refuse_fmt(ds, modname, "%s/.build-id/%s/%s", elem, xx, hex + 2) ||
		    refuse_fmt(ds, modname, "%s/.build-id/%s/%s.debug", elem, xx, hex + 2))
			return 1;
	}
	if (!name)
		return 0;
	if (!elem[0])
		return refuse_fmt(ds, modname, "%s/%s%s", dir, name, "");
	if (elem[0] != '/')
		return refuse_fmt(ds, modname, "%s/%s/%s", dir, elem, name);
	/* the main file's directory and each of its tails under elem, then
	 * elem itself: /usr/lib/debug/usr/bin, /usr/lib/debug/bin, /usr/lib/debug */
	for (const char *tail = dir; tail && *tail == '/'; tail = strchr(tail + 1, '/'))
		if (refuse_fmt(ds, modname, "%s%s/%s", elem, tail, name))
			return 1;
	if (dir[0] != '/' && refuse_fmt(ds, modname, "%s/%s/%s", elem, dir, name))
		return 1;
	return refuse_fmt(ds, modname, "%s/%s%s", elem, name, "");
}

int safe_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	struct debug_search *ds = *userdata;
	const unsigned char *bits = NULL;
	GElf_Addr bid_vaddr;
	char *hex = NULL, *path = NULL, *dir = NULL, *name = NULL, *elem, *save = NULL;
	int n, bad = 0;

	if (!ds)
		return -1;      /* a module not reported by symbols.c: never searched */
	n = dwfl_module_build_id(mod, &bits, &bid_vaddr);
	if (n > 1 && (hex = malloc(2 * (size_t)n + 1)))
		for (int i = 0; i < n; i++)
			sprintf(hex + 2 * i, "%02x", bits[i]);
	if (file_name) {
		const char *slash = strrchr(file_name, '/');
		dir = slash ? strndup(file_name, (size_t)(slash - file_name)) : strdup(".");
		if (debuglink_file)
			name = strdup(debuglink_file);
		else if (asprintf(&name, "%s.debug", slash ? slash + 1 : file_name) < 0)
			name = NULL;
		if (dir && name && name[0] == '/')
			bad = refuse(ds, modname, name);
		if (dir && !dir[0]) {   /* a file in / */
			free(dir);
			dir = strdup("");
		}
	}
	/* the empty element (the file's own directory) first, whether the
	 * path names it or not: strtok_r skips empty elements */
	if (!bad)
		bad = check_element(ds, modname, "", hex, dir ? dir : ".", dir ? name : NULL);
	path = strdup(ds->path && *ds->path ? ds->path : ":.debug:/usr/lib/debug");
	for (elem = path ? strtok_r(path, ":", &save) : NULL; !bad && elem; elem = strtok_r(NULL, ":", &save)) {
		while (*elem == '+' || *elem == '-')
			elem++;
		bad = check_element(ds, modname, elem, hex, dir ? dir : ".", dir ? name : NULL);
	}
	free(hex);
	free(path);
	free(dir);
	free(name);
	if (bad)
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
					    debuginfo_file_name);
}
