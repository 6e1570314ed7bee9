/*
 * safe-debug.c - the debug-file searches for modules that a trace names.
 *
 * libdwfl's standard find_debuginfo opens candidate files with a plain
 * open(): a FIFO named prog.debug (or .build-id/xx/yy.debug, or .dwz/NAME
 * for a dwz alt file) blocks the reader for ever, and a device would be
 * opened.  So this callback runs the same search itself, in the same order
 * (as libdwfl.h documents it and elfutils 0.188 does it: build-id links
 * under each absolute directory, then the debuglink name in the file's
 * directory, under each relative directory there, and under each absolute
 * directory with each tail of the file's directory), but opens every
 * candidate through fnt_open_regular() (regular files only, no device ever
 * opened, no FIFO waited on), checks it carries the build-id (or the
 * debuglink CRC) it must, and hands libdwfl the open descriptor.  libdwfl
 * calls the same callback for the dwz alt file (.gnu_debugaltlink) once it
 * has the DWARF; that search is done the same way.
 *
 * libdw itself opens two kinds of file with a plain open(), with no
 * callback: the alt file again, when the search above found none (in
 * dwarf_getalt: /usr/lib/debug/.build-id/xx/yy.debug, then the alt name,
 * absolute or beside the debug file), and split-DWARF .dwo files (beside
 * the debug file, then under the unit's DW_AT_comp_dir).
 * safe_dwarf_check() lists those paths before the module's DWARF is first
 * used; if one is there and is not a regular file, that DWARF is not used
 * (names come from the symbol table).  Debuginfod is not asked.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dwarf.h>
#include "format/safeio.h"
#include "symbols/safe-debug.h"

#define MAX_BUILD_ID 64

/* What one search looks for. */
struct search {
	struct debug_search *ds;
	const char *modname;
	int alt;                        /* the dwz alt file, not the debug file */
	const uint8_t *id;              /* the build-id it must carry, or NULL */
	size_t id_len;
	GElf_Word crc;                  /* without an id: the debuglink CRC, 0 none */
	struct stat main_st;            /* the file searched for (never its own debug file) */
	int have_main_st;
	int fd;                         /* found: the open file ... */
	char *found;                    /* ... and its name */
};

static const char *kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link" :
	       "not a regular file";
}

static void note_refused(struct debug_search *ds, const char *path, mode_t mode, const char *what,
			 const char *modname)
{
	if (ds->refused)
		return;         /* the first says enough */
	if (asprintf(&ds->refused, "'%s' is %s: not read as %s of '%s'", path, kind(mode), what, modname) < 0)
		ds->refused = NULL;
}

/* 1 if path exists and is not a regular file (lstat's answer on a dangling
 * link or a link to one: the kind of what it names) */
static int not_regular(const char *path, mode_t *mode)
{
	struct stat st;
	if (stat(path, &st))
		return 0;
	*mode = st.st_mode;
	return !S_ISREG(st.st_mode);
}

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* the .gnu_debuglink CRC of the whole file (the standard CRC-32) */
static int file_crc(int fd, uint32_t *crc)
{
	enum { BUF = 65536 };
	uint8_t *buf = malloc(BUF);
	off_t off = 0;
	ssize_t n = -1;
	*crc = 0;
	while (buf && (n = pread(fd, buf, BUF, off)) > 0) {
		*crc = crc32_update(*crc, buf, (size_t)n);
		off += n;
	}
	free(buf);
	return n < 0 ? -1 : 0;
}

/* Whether the open candidate is the file searched for.  Read without a
 * mapping (ELF_C_READ): it is checked before anything trusts it. */
static int valid(const struct search *s, int fd)
{
	const void *bits;
	Elf *e;
	ssize_t n;
	int ok;

	if (!s->id) {
		uint32_t crc;
		return !s->crc || (!file_crc(fd, &crc) && crc == s->crc);
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return 0;
	n = dwelf_elf_gnu_build_id(e, &bits);
	ok = n > 0 && (size_t)n == s->id_len && !memcmp(bits, s->id, s->id_len);
	elf_end(e);
	return ok;
}

/* Try one candidate (path is taken): 1 when it is the file (s->fd, s->found). */
static int try_path(struct search *s, char *path)
{
	struct stat st;
	const char *why;
	mode_t mode;
	int fd;

	if (!path)
		return 0;
	fd = fnt_open_regular(path, 0, &st, &why);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR && not_regular(path, &mode))
			note_refused(s->ds, path, mode, s->alt ? "the dwz file of the debug information" :
				     "debug information", s->modname);
		free(path);
		return 0;
	}
	if ((s->have_main_st && st.st_dev == s->main_st.st_dev && st.st_ino == s->main_st.st_ino) ||
	    !valid(s, fd)) {
		close(fd);
		free(path);
		return 0;
	}
	s->fd = fd;
	s->found = path;
	return 1;
}

char *str_printf(const char *fmt, ...)
{
	va_list ap;
	char *r = NULL;
	int n;
	va_start(ap, fmt);
	n = vasprintf(&r, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : r;
}

/* dir/sub/file with any of dir and sub absent, as libdwfl joins them */
static char *path3(const char *dir, const char *sub, const char *file)
{
	if (!dir && !sub)
		return strdup(file);
	if (!sub)
		return str_printf("%s/%s", dir, file);
	if (!dir)
		return str_printf("%s/%s", sub, file);
	return str_printf("%s/%s/%s", dir, sub, file);
}

static char *hex_of(const uint8_t *id, size_t n)
{
	char *h = malloc(2 * n + 1);
	if (h)
		for (size_t i = 0; i < n; i++)
			sprintf(h + 2 * i, "%02x", id[i]);
	return h;
}

/* ROOT/.build-id/xx/rest.debug under each absolute element of the path */
static int search_build_id(struct search *s, const char *search_path)
{
	char *hex, *copy, *elem, *rest;
	int found = 0;

	if (!s->id || s->id_len < 3 || s->id_len > MAX_BUILD_ID || !(hex = hex_of(s->id, s->id_len)))
		return 0;
	copy = strdup(search_path);
	for (rest = copy; !found && rest && (elem = strsep(&rest, ":"));) {
		if (*elem == '+' || *elem == '-')
			elem++;
		if (elem[0] == '/')
			found = try_path(s, str_printf("%s/.build-id/%.2s/%s.debug", elem, hex, hex + 2));
	}
	free(copy);
	free(hex);
	return found;
}

/* The search by name, for the debug file of file_name (name: its
 * debuglink, or NULL for BASENAME.debug) or for its alt file (name: the
 * alt name), in libdwfl's order. */
static int search_by_name(struct search *s, const char *search_path, const char *file_name, const char *name)
{
	const char *base = strrchr(file_name, '/') ? strrchr(file_name, '/') + 1 : file_name;
	char *dir = base == file_name ? NULL : strndup(file_name, (size_t)(base - 1 - file_name));
	char *made = NULL, *copy = strdup(search_path), *rest = copy, *elem;
	int try_base = !name, found = 0;

	if (!name) {
		if (s->alt || !(made = str_printf("%s.debug", base)))
			goto out;
		name = made;
	}
	while (!found && rest && (elem = strsep(&rest, ":"))) {
		if (*elem == '+' || *elem == '-')
			elem++;
		if (!elem[0]) {                         /* the file's own directory */
			found = try_path(s, path3(dir, NULL, name));
			if (!found && s->alt)
				found = try_path(s, path3(dir, ".dwz", strrchr(name, '/') ? strrchr(name, '/') + 1 : name));
		} else if (elem[0] == '/' && s->alt) {  /* the alt name's basename there, or in its .dwz */
			const char *b = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
			found = try_path(s, path3(elem, NULL, b)) || try_path(s, path3(elem, ".dwz", b));
		} else if (elem[0] == '/') {            /* each tail of the file's directory under it */
			if (!dir || dir[0] != '/')
				continue;
			for (const char *sub = dir; !found;) {
				sub = strchr(sub, '/');
				if (sub)
					sub++;
				if (sub && !*sub)
					break;
				found = try_path(s, path3(elem, sub, name)) ||
					(try_base && try_path(s, path3(elem, sub, base)));
				if (!sub)
					break;
			}
		} else {                                /* a directory of that name beside the file */
			found = try_path(s, path3(dir, elem, name)) || (try_base && try_path(s, path3(dir, elem, base)));
		}
	}
out:
	free(made);
	free(copy);
	free(dir);
	return found;
}

/* The alt link of a file (.gnu_debugaltlink: a name, then the build-id of
 * the alt file); 0 if it has none. */
static int read_altlink(const char *file_name, char **name, uint8_t *id, size_t *id_len)
{
	const char *why;
	int fd = fnt_open_regular(file_name, 0, NULL, &why), found = 0;
	size_t shstrndx;
	Elf *e;

	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getshdrstrndx(e, &shstrndx))
		for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(e, scn));) {
			GElf_Shdr sh;
			const char *sname;
			Elf_Data *d;
			if (!gelf_getshdr(scn, &sh) || !(sname = elf_strptr(e, shstrndx, sh.sh_name)) ||
			    strcmp(sname, ".gnu_debugaltlink") || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
				continue;
			const char *p = d->d_buf;
			size_t nl = strnlen(p, d->d_size);
			if (nl == 0 || nl + 1 >= d->d_size || d->d_size - nl - 1 > MAX_BUILD_ID)
				break;
			*name = strndup(p, nl);
			*id_len = d->d_size - nl - 1;
			memcpy(id, p + nl + 1, *id_len);
			found = *name != NULL;
		}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

int safe_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	struct debug_search *ds = *userdata;
	struct search s = { .ds = ds, .modname = modname, .fd = -1 };
	const char *search_path;
	uint8_t alt_id[MAX_BUILD_ID];
	char *alt_name = NULL, *canon = NULL;
	size_t alt_len = 0;
	GElf_Addr bid_vaddr;

	(void)base;
	if (!ds || !file_name)
		return -1;      /* a module not reported by symbols.c: never searched */
	search_path = ds->path && *ds->path ? ds->path : ":.debug:/usr/lib/debug";
	if (!stat(file_name, &s.main_st))
		s.have_main_st = 1;
	/* libdwfl asks for the alt file with the alt name as the debuglink
	 * and no CRC, once the DWARF of file_name is loaded */
	if (debuglink_file && !debuglink_crc && read_altlink(file_name, &alt_name, alt_id, &alt_len) &&
	    !strcmp(alt_name, debuglink_file)) {
		s.alt = 1;
		s.id = alt_id;
		s.id_len = alt_len;
	} else {
		const unsigned char *bits = NULL;
		int n = dwfl_module_build_id(mod, &bits, &bid_vaddr);
		if (n > 0) {
			s.id = bits;
			s.id_len = (size_t)n;
		} else {
			s.crc = debuglink_crc;
		}
	}
	if (!search_build_id(&s, search_path) && !search_by_name(&s, search_path, file_name, debuglink_file) &&
	    (canon = realpath(file_name, NULL)) && strcmp(canon, file_name))
		search_by_name(&s, search_path, canon, debuglink_file);
	free(canon);
	free(alt_name);
	if (s.fd < 0)
		return -1;
	*debuginfo_file_name = s.found;
	return s.fd;
}

/* ---- what libdw opens by itself ---- */

static int refuse_path(struct debug_search *ds, const char *modname, const char *what, char *path)
{
	mode_t mode;
	int bad = path && not_regular(path, &mode);
	if (bad) {
		free(ds->refused);
		ds->refused = NULL;
		if (asprintf(&ds->refused, "'%s' is %s: the DWARF of '%s' is not used (libdw would open it as %s); "
			     "names come from its symbol table", path, kind(mode), modname, what) < 0)
			ds->refused = NULL;
	}
	free(path);
	return bad;
}

/* libdw's file name for file in dir (__libdw_filepath): absolute as is;
 * under an absolute dir; else under debugdir (a directory the DWARF's file
 * lies in) */
static char *libdw_path(const char *debugdir, const char *dir, const char *file)
{
	if (!file)
		return NULL;
	if (file[0] == '/')
		return strdup(file);
	if (dir && dir[0] == '/')
		return str_printf("%s/%s", dir, file);
	if (!debugdir)
		return NULL;
	return dir && *dir ? str_printf("%s/%s/%s", debugdir, dir, file) : str_printf("%s/%s", debugdir, file);
}

static const char *attr_string(Dwarf_Die *die, int name, int gnu_name)
{
	Dwarf_Attribute a;
	if (dwarf_attr(die, name, &a) || (gnu_name && dwarf_attr(die, gnu_name, &a)))
		return dwarf_formstring(&a);
	return NULL;
}

int safe_dwarf_check(struct debug_search *ds, Dwfl_Module *mod, const char *modname)
{
	const char *main_file = NULL, *debug_file = NULL, *alt_name;
	const void *alt_id;
	char *dirs[2] = { NULL, NULL };
	Dwarf_Addr bias;
	Dwarf *dw;
	ssize_t n;
	int bad = 0;

	if (!ds || !(dw = dwfl_module_getdwarf(mod, &bias)))
		return 0;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &main_file, &debug_file);
	/* libdw's debugdir: the directory of the file the DWARF came from, as
	 * the kernel names it (either of the two, to be sure) */
	for (int i = 0; i < 2; i++) {
		const char *f = i ? debug_file : main_file;
		char *r = f ? realpath(f, NULL) : NULL, *slash = r ? strrchr(r, '/') : NULL;
		if (slash)
			*slash = 0;
		dirs[i] = r;
	}
	/* the alt file: libdw opens it itself when libdwfl did not set it */
	n = dwelf_dwarf_gnu_debugaltlink(dw, &alt_name, &alt_id);
	if (n > 0) {
		if (n >= 3 && n <= MAX_BUILD_ID) {
			char *hex = hex_of(alt_id, (size_t)n);
			bad = hex && refuse_path(ds, modname, "its dwz file",
						 str_printf("/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2));
			free(hex);
		}
		for (int i = 0; i < 2 && !bad; i++)
			bad = refuse_path(ds, modname, "its dwz file", libdw_path(dirs[i], NULL, alt_name));
	}
	/* split units: each skeleton's .dwo beside the DWARF's file, then
	 * under its compilation directory */
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;
	while (!bad && dwarf_get_units(dw, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
		const char *dwo, *comp_dir;
		if (type != DW_UT_skeleton || !(dwo = attr_string(&cudie, DW_AT_dwo_name, DW_AT_GNU_dwo_name)))
			continue;
		comp_dir = attr_string(&cudie, DW_AT_comp_dir, 0);
		for (int i = 0; i < 2 && !bad; i++)
			bad = refuse_path(ds, modname, "a split-DWARF file", libdw_path(dirs[i], NULL, dwo)) ||
			      (comp_dir && refuse_path(ds, modname, "a split-DWARF file",
						       libdw_path(dirs[i], comp_dir, dwo)));
	}
	free(dirs[0]);
	free(dirs[1]);
	ds->dwarf_refused = bad;
	return bad;
}
