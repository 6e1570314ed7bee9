/*
 * cmd-archive.c - `fntrace archive`: one tar file holding a trace and the
 * module and debug files it needs, to read it on another machine (as
 * `perf archive` does).
 *
 * The tar holds DIR/ as it is (the .fnt files, session, argspecs, the saved
 * symbol tables, snapshots) and, under DIR/debug/.build-id/xx/rest, each
 * module file that has events and still carries its recorded build-id, with
 * its separate debug file as rest.debug.  The readers take DIR/debug as a
 * debug root by themselves (view.c), and symbols/ opens a module by its
 * build-id there when its recorded path is gone, so `tar xf` then `fntrace
 * replay -d DIR` is all it takes.  Everything is written 0600 (directories
 * 0700) whatever the originals were: a trace may hold captured secrets.
 *
 * The tar is plain POSIX ustar, written here (no library): 512-byte headers,
 * data padded to 512, two zero blocks at the end.  It is written through
 * outfile.c: under a temporary name beside FILE, renamed when complete and
 * removed when archive fails or is killed ("-": standard output).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "format/safeio.h"
#include "tool/tool.h"

static const char archive_usage[] =
	"usage: fntrace archive [-d DIR] [-o FILE.tar] [--debug-dir DIR] [--prefix-map OLD=NEW]\n\n"
	"Write one tar file holding the trace and the module and debug files it needs,\n"
	"to read it on another machine: 'tar xf FILE.tar', then 'fntrace replay -d DIR'\n"
	"(DIR/debug inside it is searched for the modules by build-id).\n\n"
	"  -d, --data DIR       the trace directory (default: fntrace.data)\n"
	"  -o, --output FILE    the tar file (default: DIR.tar; - for standard output);\n"
	"                       made 0600\n"
	"      --debug-dir DIR  also look for debug files under DIR, as the readers do\n"
	"                       (repeatable): what is found there goes into the tar\n"
	"      --prefix-map OLD=NEW  read module files from NEW where OLD was recorded\n"
	"  -h, --help           this help\n";

/* the names written, each entry once (an unpacked archive's debug/ holds
 * copies that its modules find again; two paths may share a build-id) */
struct nameset {
	char **slot;
	size_t size, n;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* 1 if name is new (and is now in the set), 0 if it was there */
static int nameset_add(struct nameset *ns, const char *name)
{
	size_t j;

	if (2 * (ns->n + 1) > ns->size) {
		size_t nsize = ns->size ? 2 * ns->size : 64;
		char **nv = xcalloc(nsize, sizeof(*nv));
		for (size_t i = 0; i < ns->size; i++)
			if (ns->slot[i]) {
				for (j = name_hash(ns->slot[i]) & (nsize - 1); nv[j]; j = (j + 1) & (nsize - 1))
					;
				nv[j] = ns->slot[i];
			}
		free(ns->slot);
		ns->slot = nv;
		ns->size = nsize;
	}
	for (j = name_hash(name) & (ns->size - 1); ns->slot[j]; j = (j + 1) & (ns->size - 1))
		if (!strcmp(ns->slot[j], name))
			return 0;
	ns->slot[j] = xstrdup(name);
	ns->n++;
	return 1;
}

static void nameset_free(struct nameset *ns)
{
	for (size_t i = 0; i < ns->size; i++)
		free(ns->slot[i]);
	free(ns->slot);
}

struct tar {
	FILE *f;
	const char *out;
	uint64_t bytes;
	size_t files;
	struct nameset names;
};

/* len - 1 octal digits and a NUL (a size past 8 GiB does not fit ustar) */
static void put_octal(char *field, size_t len, uint64_t v)
{
	char tmp[32];

	if (len - 1 < 22 && v >> (3 * (len - 1)))
		die("cannot archive a file of %" PRIu64 " bytes: too large for a tar file", v);
	snprintf(tmp, sizeof(tmp), "%0*" PRIo64, (int)len - 1, v);
	memcpy(field, tmp, len);
}

static void tar_write(struct tar *t, const void *buf, size_t n)
{
	if (n && fwrite(buf, 1, n, t->f) != n)
		die("cannot write '%s': %s", t->out, strerror(errno));
	t->bytes += n;
}

/* a ustar header: name split into prefix (155) / name (100) at a '/' */
static void tar_header(struct tar *t, const char *name, char type, uint64_t size, unsigned mode, time_t mtime)
{
	char h[512];
	size_t len = strlen(name), cut = 0;
	unsigned sum = 0;

	memset(h, 0, sizeof(h));
	if (len > 100) {
		for (size_t i = len > 101 ? len - 101 : 0; i < len && i <= 155; i++)
			if (name[i] == '/') {
				cut = i;
				break;
			}
		if (!cut || len - cut - 1 > 100)
			die("cannot archive '%s': the name is too long for a tar file", name);
		memcpy(h + 345, name, cut);
		memcpy(h, name + cut + 1, len - cut - 1);
	} else {
		memcpy(h, name, len);
	}
	put_octal(h + 100, 8, mode);
	put_octal(h + 108, 8, 0);
	put_octal(h + 116, 8, 0);
	put_octal(h + 124, 12, size);
	put_octal(h + 136, 12, mtime > 0 ? (uint64_t)mtime : 0);
	memset(h + 148, ' ', 8);
	h[156] = type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (size_t i = 0; i < sizeof(h); i++)
		sum += (unsigned char)h[i];
	put_octal(h + 148, 7, sum);
	tar_write(t, h, sizeof(h));
}

static void tar_dir(struct tar *t, const char *name)
{
	char *n = xmalloc(strlen(name) + 2);
	sprintf(n, "%s/", name);
	if (nameset_add(&t->names, n))
		tar_header(t, n, '5', 0, 0700, time(NULL));
	free(n);
}

/* the regular file at path (not followed through a link when nofollow) as name */
static void tar_file(struct tar *t, const char *path, const char *name, int nofollow)
{
	static const char zeros[512];
	struct stat st;
	const char *why;
	char buf[65536];
	uint64_t left;
	int fd;

	if (!nameset_add(&t->names, name))
		return;
	fd = fnt_open_regular(path, nofollow ? FNT_OPEN_NOFOLLOW : 0, &st, &why);
	if (fd < 0) {
		warning("cannot archive '%s': %s", path, why);
		return;
	}
	tar_header(t, name, '0', (uint64_t)st.st_size, 0600, st.st_mtime);
	for (left = (uint64_t)st.st_size; left;) {
		ssize_t n = read(fd, buf, left < sizeof(buf) ? left : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {           /* the file shrank: keep the tar consistent */
			memset(buf, 0, sizeof(buf));
			n = (ssize_t)(left < sizeof(buf) ? left : sizeof(buf));
		}
		tar_write(t, buf, (size_t)n);
		left -= (uint64_t)n;
	}
	close(fd);
	tar_write(t, zeros, (512 - st.st_size % 512) % 512);
	t->files++;
}

/* the trace directory's own files, and those of its snapshot-*, symtab and
 * debug subdirectories (an archive of an unpacked archive keeps them) */
static void tar_tree(struct tar *t, const char *path, const char *name, int depth)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	if (!d)
		die("cannot read '%s': %s", path, strerror(errno));
	tar_dir(t, name);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' && (!depth || !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
					     !strcmp(de->d_name, ".lock") || !strcmp(de->d_name, ".session.tmp")))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		char p[4400], nm[4400];
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s", path, names[i]);
		snprintf(nm, sizeof(nm), "%s/%s", name, names[i]);
		if (lstat(p, &st))
			continue;
		if (S_ISREG(st.st_mode))
			tar_file(t, p, nm, 1);
		else if (S_ISDIR(st.st_mode) && depth < 4)
			tar_tree(t, p, nm, depth + 1);
		free(names[i]);
	}
	free(names);
}

/* -o: a tar file, not a directory (refused before anything is written) */
static void check_output(const char *out)
{
	struct stat st;
	size_t len = strlen(out);

	if (!len)
		die_usage("option '-o' needs a file name");
	if (!strcmp(out, "-"))
		return;
	if (out[len - 1] == '/' || !strcmp(out, ".") || !strcmp(out, "..") ||
	    (len >= 2 && !strcmp(out + len - 2, "/.")) || (len >= 3 && !strcmp(out + len - 3, "/..")) ||
	    (!stat(out, &st) && S_ISDIR(st.st_mode)))
		die("option '-o' names a directory ('%s'): give the tar file's name (like '%s%sNAME.tar')", out, out,
		    out[len - 1] == '/' ? "" : "/");
}

/* s as one shell word (malloc'd): as it is when nothing needs quoting,
 * else in '...', or in $'...' with \xHH escapes when it holds a control
 * character (which must not reach the terminal raw) */
static char *sh_quote(const char *s)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%";
	size_t len = strlen(s);
	int is_plain = len > 0, ctrl = 0;
	char *q, *p;

	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (!strchr(plain, *c))
			is_plain = 0;
		if (*c < 0x20 || *c == 0x7f || (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f))
			ctrl = 1;
	}
	if (is_plain)
		return xstrdup(s);
	p = q = xmalloc(4 * len + 4);
	if (ctrl) {
		*p++ = '$';
		*p++ = '\'';
		for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
			if (*c < 0x20 || *c == 0x7f || (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) ||
			    (c > (const unsigned char *)s && c[-1] == 0xc2 && *c >= 0x80 && *c <= 0x9f))
				p += sprintf(p, "\\x%02x", *c);
			else if (*c == '\'' || *c == '\\')
				p += sprintf(p, "\\%c", *c);
			else
				*p++ = (char)*c;
		}
	} else {
		*p++ = '\'';
		for (const char *c = s; *c; c++)
			if (*c == '\'')
				p += sprintf(p, "'\\''");
			else
				*p++ = *c;
	}
	*p++ = '\'';
	*p = 0;
	return q;
}

int cmd_archive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "debug-dir", required_argument, NULL, 0x100 },
		{ "prefix-map", required_argument, NULL, 0x101 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = "fntrace.data", *out = NULL, *base;
	struct used_modules u = { .snapshots = 1 };
	struct symbols *syms;
	struct tar t = { 0 };
	struct out_file of;
	char *top, *dflt = NULL, size[32];
	size_t n_mod = 0;
	struct nameset mods = { 0 };
	struct strlist debug_dirs = { 0 }, prefix_map = { 0 };
	char **nolines = NULL;
	size_t n_nolines = 0;
	int opt;

	opterr = 0;
	while ((opt = fnt_getopt_long(argc, argv, ":d:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dir = optarg; break;
		case 'o': out = optarg; break;
		case 0x100: strlist_add(&debug_dirs, optarg); break;
		case 0x101:
			if (!strchr(optarg, '='))
				die_usage("option '--prefix-map' takes OLD=NEW, not '%s'", optarg);
			strlist_add(&prefix_map, optarg);
			break;
		case 'h': fputs(archive_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	top = xstrdup(dir);
	for (size_t l = strlen(top); l > 1 && top[l - 1] == '/'; l--)
		top[l - 1] = 0;
	base = strrchr(top, '/');
	base = base && base[1] ? base + 1 : top;
	if (!strcmp(base, ".") || !strcmp(base, ".."))
		die_usage("archive a trace by its directory's name (-d ../%s), not '%s'", "NAME", dir);
	if (!out) {
		dflt = xmalloc(strlen(top) + 8);
		sprintf(dflt, "%s.tar", top);
		out = dflt;
	}
	if (used_modules_collect(&u, top))
		die("'%s' is not a trace directory ('fntrace record' writes one)", dir);
	check_output(out);
	{
		const char **mods = xcalloc(u.n + 1, sizeof(*mods));
		for (size_t i = 0; i < u.n; i++)
			mods[i] = u.v[i].path;
		out_file_check(out, "the archive", top, mods, u.n, 1);
		free(mods);
	}
	t.out = out;
	out_file_open_private(&of, out);
	t.f = of.f;
	tar_tree(&t, top, base, 0);
	{
		/* the readers' search: --debug-dir, then DIR/debug (an unpacked
		 * archive's copies count as its modules); --prefix-map */
		struct symbols_options so = { 0 };
		char *dbgdir = xmalloc(strlen(top) + 8);
		const char **dirs = xcalloc(debug_dirs.n + 1, sizeof(*dirs));
		for (size_t i = 0; i < debug_dirs.n; i++)
			dirs[i] = debug_dirs.v[i];
		sprintf(dbgdir, "%s/debug", top);
		dirs[debug_dirs.n] = dbgdir;
		so.debug_dirs = dirs;
		so.n_debug_dirs = debug_dirs.n + 1;
		so.prefix_map = prefix_map.v;
		so.n_prefix_map = prefix_map.n;
		syms = symbols_new(&so);
		free(dirs);
		free(dbgdir);
	}
	if (!syms)
		die("cannot initialise the symbolizer");
	for (size_t i = 0; i < u.n; i++) {
		struct used_module *m = &u.v[i];
		const char *dbg, *file;
		char hexid[72], name[4400];
		int h;

		if (!m->build_id_len) {
			warning("'%s' has no build-id: it is not in the archive (its names need the same file "
				"where the trace is read)", m->path);
			continue;
		}
		h = symbols_add_module(syms, m->path, m->build_id, m->build_id_len);
		file = symbols_module_files(syms, h, &dbg);
		if (!file) {
			const char *w = symbols_module_warning(syms, h);
			warning("'%s' is not in the archive: %s", m->path, w ? w : "it cannot be read");
			continue;
		}
		for (size_t k = 0; k < m->build_id_len; k++)
			sprintf(hexid + 2 * k, "%02x", m->build_id[k]);
		if (nameset_add(&mods, hexid)) {        /* two paths, one build-id: one module */
			n_mod++;
			if (!symbols_module_has_dwarf(syms, h)) {
				nolines = xrealloc(nolines, (n_nolines + 1) * sizeof(*nolines));
				nolines[n_nolines++] = xstrdup(m->path);
			}
		}
		if (!strncmp(file, top, strlen(top)) && !strncmp(file + strlen(top), "/debug/", 7))
			continue;       /* already in DIR/debug: copied with the tree */
		/* each entry once: the tree's copies (of an unpacked archive) stay */
		snprintf(name, sizeof(name), "%s/debug", base);
		tar_dir(&t, name);
		snprintf(name, sizeof(name), "%s/debug/.build-id", base);
		tar_dir(&t, name);
		snprintf(name, sizeof(name), "%s/debug/.build-id/%.2s", base, hexid);
		tar_dir(&t, name);
		snprintf(name, sizeof(name), "%s/debug/.build-id/%.2s/%s", base, hexid, hexid + 2);
		tar_file(&t, file, name, 0);
		if (dbg) {
			strcat(name, ".debug");
			tar_file(&t, dbg, name, 0);
		}
	}
	{
		static const char end[1024];
		tar_write(&t, end, sizeof(end));
	}
	if (out_file_close(&of, 0))
		exit(1);
	human_bytes(size, sizeof(size), t.bytes);
	{                       /* the commands to paste, each word quoted as the shell needs */
		char buf[512];
		char *qout = sh_quote(strcmp(out, "-") ? out : "FILE.tar"), *qbase = sh_quote(base);
		if (strcmp(out, "-"))
			fprintf(stderr, "fntrace: wrote '%s'", text_safe(out, buf, sizeof(buf)));
		else
			fprintf(stderr, "fntrace: wrote the archive to standard output");
		fprintf(stderr, " (%zu file%s, %zu module%s, %s); read it elsewhere with: tar xf %s && "
			"fntrace replay -d %s\n", t.files, t.files == 1 ? "" : "s", n_mod, n_mod == 1 ? "" : "s",
			size, qout, qbase);
		free(qout);
		free(qbase);
	}
	if (n_nolines) {
		/* names come with the module (and the saved tables); lines need DWARF */
		size_t shown = n_nolines < 4 ? n_nolines : 3, len = 0;
		char *list = NULL;
		for (size_t i = 0; i < n_nolines; i++) {
			if (i < shown) {
				char buf[512];
				const char *p = text_safe(nolines[i], buf, sizeof(buf));
				list = xrealloc(list, len + strlen(p) + 5);
				len += (size_t)sprintf(list + len, "%s'%s'", i ? ", " : "", p);
			}
			free(nolines[i]);
		}
		warning("no debug info was found for %s%s%.0zu%s: the archive has %s names but no source lines "
			"(a stripped file's debug file is found as the readers find it; name its directory "
			"with --debug-dir)", list, n_nolines > shown ? " and " : "", n_nolines > shown ?
			n_nolines - shown : 0, n_nolines > shown ? " more" : "", n_nolines == 1 ? "its" : "their");
		free(list);
		free(nolines);
	}
	symbols_free(syms);
	used_modules_release(&u);
	free(debug_dirs.v);
	free(prefix_map.v);
	nameset_free(&mods);
	nameset_free(&t.names);
	free(top);
	free(dflt);
	return 0;
}
