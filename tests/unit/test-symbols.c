/*
 * test-symbols.c - the symbolizer (symbols/symbols.c) on real binaries.
 *
 * The fixtures under tests/unit/symbols-fixtures/ are compiled at test time
 * with gcc and clang into a temporary directory: a C program as PIE and
 * -no-pie, without -g, a shared library, and a C++ program with a namespace,
 * templates, an anonymous namespace and operators.  Function addresses come
 * from `nm` (whose -C names are also the expected demangled names); lines
 * come from the "@name" markers in the sources.  Checked:
 *  - exact full names and short names (C and C++), start of a function from
 *    an address inside it, the mangled name with no_demangle;
 *  - file basename and exact line of a function, srcline of an address;
 *  - an address outside every symbol -> "prog+0x...", status -1;
 *  - build-id mismatch -> "prog+0x..." and a warning naming the file;
 *    a missing file -> "cannot open '...': No such file or directory";
 *  - no debug info -> name found, line 0, file NULL;
 *  - debug info moved to DIR/.build-id/xx/rest.debug: found with DIR in
 *    debug_dirs (absolute and relative), not without; names from the debug
 *    file when the program is stripped of everything;
 *  - --prefix-map, dedup by (path, build-id), cached strings stay the same;
 *  - a module file cut while it is read (after it was opened and mapped):
 *    no SIGBUS, the module+0xoffset fallback and a warning; a file whose
 *    section headers point past its end: the fallback, no crash;
 *  - registering 100,000 distinct module files (a trace names them) takes
 *    at most 16x + 1 s the CPU time of 12,500 (it was quadratic).
 * Run from the repository root: build/tests/test-symbols.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "symbols/symbols.h"

#include "check.h"

static char tmp[256];
static char fixtures[4096];
static int have_clang;

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	CHECK(rc == 0, "command failed (%d): %s", rc, cmd);
	return rc;
}

static const char *basename_of(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

/* The line holding "@name" in a fixture source, 0 if none. */
static int marker_line(const char *src, const char *name)
{
	char path[4400], line[1024], marker[256];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", fixtures, src);
	snprintf(marker, sizeof(marker), "@%s */", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

/* A function symbol in `nm` output: by its exact name (demangled with -C when
 * demangle) or, with name NULL, the raw name at addr into out. */
static int nm_find(const char *file, int demangle, const char *name, uint64_t *addr, uint64_t *size,
		   char *out, size_t outlen)
{
	char cmd[4400], line[4096];
	FILE *p;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "nm %s--defined-only -S '%s' 2>/dev/null", demangle ? "-C " : "", file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (!found && fgets(line, sizeof(line), p)) {
		char *q = line, *tok, *name_at, *nl = strchr(line, '\n');
		uint64_t a, sz = 0;
		char type;

		if (nl)
			*nl = 0;
		/* "addr [size] type name" */
		a = strtoull(q, &q, 16);
		if (*q++ != ' ')
			continue;
		tok = q;
		q = strchr(q, ' ');
		if (!q)
			continue;
		if (q - tok == 1) {
			type = *tok;
		} else {
			sz = strtoull(tok, NULL, 16);
			type = *++q;
			q++;
		}
		if (*q != ' ' || !strchr("tTwW", type))
			continue;
		name_at = q + 1;
		if (name && !strcmp(name_at, name)) {
			*addr = a;
			if (size)
				*size = sz;
			found = 1;
		} else if (!name && a == *addr && out) {
			snprintf(out, outlen, "%s", name_at);
			found = 1;
		}
	}
	pclose(p);
	return found ? 0 : -1;
}

static uint64_t addr_of(const char *file, const char *name, uint64_t *size)
{
	uint64_t a = 0;
	if (nm_find(file, 1, name, &a, size, NULL, 0)) {
		CHECK(0, "no symbol '%s' in %s", name, file);
		return 0;
	}
	return a;
}

/* The file's build-id from `readelf -n`. */
static size_t build_id_of(const char *file, uint8_t *id, size_t max)
{
	char cmd[4400], line[1024];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", file);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		char *h = strstr(line, "Build ID: ");
		if (!h || n)
			continue;
		for (h += 10; n < max && h[0] && h[1] && h[0] != '\n'; h += 2) {
			unsigned v;
			if (sscanf(h, "%2x", &v) != 1)
				break;
			id[n++] = (uint8_t)v;
		}
	}
	pclose(p);
	return n;
}

/* One C function: exact name, start from an inner address, decl line. */
static void check_c_func(struct symbols *s, int mod, const char *file, const char *src, const char *fn,
			 int with_debug)
{
	uint64_t size = 0, a = addr_of(file, fn, &size);
	struct sym_func f;
	int rc;

	if (!a)
		return;
	rc = symbols_func(s, mod, a + (size > 1 ? size / 2 : 0), 1, &f);
	CHECK(rc == 0, "%s: %s: symbols_func -> %d", file, fn, rc);
	CHECK(f.name && !strcmp(f.name, fn), "%s: name '%s', want '%s'", file, f.name, fn);
	CHECK(f.short_name && !strcmp(f.short_name, fn), "%s: short '%s', want '%s'", file, f.short_name, fn);
	CHECK(f.start == a, "%s: %s start 0x%" PRIx64 ", want 0x%" PRIx64, file, fn, f.start, a);
	if (with_debug) {
		int want = marker_line(src, fn);
		CHECK(f.file && !strcmp(basename_of(f.file), src), "%s: %s file '%s'", file, fn,
		      f.file ? f.file : "(null)");
		CHECK(want && f.line == want, "%s: %s line %d, want %d", file, fn, f.line, want);
	} else {
		CHECK(!f.file && f.line == 0, "%s: %s without -g has line %s:%d", file, fn,
		      f.file ? f.file : "(null)", f.line);
	}
}

static void check_c_prog(const char *file, int with_debug)
{
	struct symbols_options o = { 0 };
	struct symbols *s = symbols_new(&o);
	uint8_t id[64];
	size_t n = build_id_of(file, id, sizeof(id));
	int mod = symbols_add_module(s, file, id, n);
	static const char *const funcs[] = { "main", "caller", "leaf", "one_line" };
	struct sym_func f, g;
	uint64_t a, size = 0;
	const char *sf;
	int sl, rc;

	CHECK(n >= 8, "%s: no build-id", file);
	CHECK(mod >= 0, "%s: handle %d", file, mod);
	CHECK(!symbols_module_warning(s, mod), "%s: warning '%s'", file, symbols_module_warning(s, mod));
	CHECK(!strcmp(symbols_module_path(s, mod), file), "%s: path '%s'", file, symbols_module_path(s, mod));
	CHECK(symbols_add_module(s, file, id, n) == mod, "%s: same module registered twice", file);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(*funcs); i++)
		check_c_func(s, mod, file, "prog.c", funcs[i], with_debug);

	/* srcline of an address inside a function written on one line */
	a = addr_of(file, "one_line", &size);
	rc = symbols_srcline(s, mod, a + size / 2, &sf, &sl);
	if (with_debug) {
		CHECK(rc == 0 && sf && !strcmp(basename_of(sf), "prog.c") && sl == marker_line("prog.c", "one_line"),
		      "%s: srcline %d %s:%d", file, rc, sf ? sf : "(null)", sl);
		/* and within leaf's lines for an address in leaf */
		a = addr_of(file, "leaf", &size);
		rc = symbols_srcline(s, mod, a + size - 1, &sf, &sl);
		CHECK(rc == 0 && sl >= marker_line("prog.c", "leaf") && sl <= marker_line("prog.c", "leaf") + 4,
		      "%s: srcline in leaf %d %d", file, rc, sl);
	} else {
		CHECK(rc == -1 && !sf && !sl, "%s: srcline without -g %d %s:%d", file, rc, sf ? sf : "", sl);
	}

	/* cached: the same strings come back */
	a = addr_of(file, "leaf", NULL);
	symbols_func(s, mod, a, 0, &f);
	symbols_func(s, mod, a, 1, &g);
	CHECK(f.name == g.name && f.short_name == g.short_name, "%s: cache gives new strings", file);
	symbols_func(s, mod, a, 0, &f);
	CHECK(f.file == g.file && f.line == g.line, "%s: cached line lost", file);

	/* no symbol there: module+offset */
	rc = symbols_func(s, mod, 0x3, 1, &f);
	CHECK(rc == -1 && !strcmp(f.name, "prog+0x3") && f.name == f.short_name && !f.file && !f.line,
	      "%s: address 0x3 -> %d '%s'", file, rc, f.name);
	/* a handle that was never given */
	rc = symbols_func(s, 42, 0x10, 1, &f);
	CHECK(rc == -1 && f.name && strstr(f.name, "+0x10"), "bad handle -> %d '%s'", rc, f.name);
	CHECK(symbols_srcline(s, -1, 0x10, &sf, &sl) == -1, "bad handle srcline");
	CHECK(!symbols_module_warning(s, 42) && !symbols_module_path(s, -1), "bad handle warning/path");
	symbols_free(s);
}

static void check_lib(const char *file)
{
	struct symbols *s = symbols_new(NULL);
	uint8_t id[64];
	size_t n = build_id_of(file, id, sizeof(id));
	int mod = symbols_add_module(s, file, id, n);
	struct sym_func f;
	uint64_t a = addr_of(file, "lib_square", NULL);
	int rc = symbols_func(s, mod, a, 1, &f);

	CHECK(rc == 0 && !strcmp(f.name, "lib_square") && f.line == marker_line("lib.c", "lib_square"),
	      "%s: lib_square -> %d '%s' line %d", file, rc, f.name, f.line);
	symbols_free(s);
}

struct cxx_name {
	const char *full, *short_name;
	const char *marker;     /* NULL: line not checked */
};

static const struct cxx_name cxx_names[] = {
	{ "int ns::twice<int>(int)", "ns::twice<int>", "twice" },
	{ "ns::foo(int, char const*)", "ns::foo", "foo" },
	{ "(anonymous namespace)::helper(int)", "(anonymous namespace)::helper", "helper" },
	{ "ns::Klass<std::pair<int, int> >::method() const", "ns::Klass<std::pair<int, int> >::method", NULL },
	{ "ns::Klass<std::pair<int, int> >::operator<(ns::Klass<std::pair<int, int> > const&) const",
	  "ns::Klass<std::pair<int, int> >::operator<", NULL },
	{ "ns::Klass<std::pair<int, int> >::operator()(int) const", "ns::Klass<std::pair<int, int> >::operator()",
	  NULL },
	{ "ns::Klass<std::pair<int, int> >::operator<<(int)", "ns::Klass<std::pair<int, int> >::operator<<", NULL },
	{ "ns::Klass<std::pair<int, int> >::operator bool() const",
	  "ns::Klass<std::pair<int, int> >::operator bool", NULL },
	{ "ns::Klass<std::pair<int, int> >::Klass(std::pair<int, int>)",
	  "ns::Klass<std::pair<int, int> >::Klass", NULL },
	{ "ns::Klass<std::pair<int, int> >::~Klass()", "ns::Klass<std::pair<int, int> >::~Klass", NULL },
	{ "bool ns::operator==<int>(ns::Box<int> const&, ns::Box<int> const&)", "ns::operator==<int>", NULL },
	{ "bool ns::operator< <int>(ns::Box<int> const&, ns::Box<int> const&)", "ns::operator< <int>", NULL },
	{ "int (*ns::pick<0>(int))(int)", "ns::pick<0>", NULL },
	{ "main", "main", NULL },
};

static void check_cxx_prog(const char *file)
{
	struct symbols_options o = { 0 };
	struct symbols *s = symbols_new(&o), *raw;
	int mod = symbols_add_module(s, file, NULL, 0), rmod;
	struct sym_func f;
	char mangled[4096];
	uint64_t a;
	int rc;

	CHECK(mod >= 0 && !symbols_module_warning(s, mod), "%s: add_module", file);
	for (size_t i = 0; i < sizeof(cxx_names) / sizeof(*cxx_names); i++) {
		const struct cxx_name *c = &cxx_names[i];
		a = addr_of(file, c->full, NULL);
		if (!a)
			continue;
		rc = symbols_func(s, mod, a, c->marker != NULL, &f);
		CHECK(rc == 0 && !strcmp(f.name, c->full), "%s: name '%s', want '%s'", file, f.name, c->full);
		CHECK(!strcmp(f.short_name, c->short_name), "%s: short '%s', want '%s'", file, f.short_name,
		      c->short_name);
		if (c->marker) {
			int want = marker_line("prog.cc", c->marker);
			CHECK(f.file && !strcmp(basename_of(f.file), "prog.cc") && f.line == want,
			      "%s: %s at %s:%d, want prog.cc:%d", file, c->full, f.file ? f.file : "(null)",
			      f.line, want);
		}
	}
	symbols_free(s);

	/* no_demangle: the symbol table's own name */
	o.no_demangle = 1;
	raw = symbols_new(&o);
	rmod = symbols_add_module(raw, file, NULL, 0);
	a = addr_of(file, "ns::foo(int, char const*)", NULL);
	mangled[0] = 0;
	nm_find(file, 0, NULL, &a, NULL, mangled, sizeof(mangled));
	rc = symbols_func(raw, rmod, a, 0, &f);
	CHECK(rc == 0 && !strcmp(f.name, "_ZN2ns3fooEiPKc") && !strcmp(f.name, mangled) &&
	      !strcmp(f.short_name, f.name), "%s: no_demangle '%s' / '%s', nm '%s'", file, f.name,
	      f.short_name, mangled);
	symbols_free(raw);
}

/* Wrong build-id, missing file, prefix map, dedup. */
static void check_mismatch(const char *file)
{
	struct symbols_options o = { 0 };
	char map[600], moved[1200];
	const char *maps[] = { "/no/such/dir=/elsewhere", map, "/fntrace-moved=/wrong" };
	uint8_t id[64], wrong[20];
	size_t n = build_id_of(file, id, sizeof(id));
	uint64_t a = addr_of(file, "leaf", NULL);
	char want[1200];
	struct symbols *s;
	struct sym_func f;
	const char *w, *sf;
	int mod, mod2, miss, rc, sl;

	snprintf(map, sizeof(map), "/fntrace-moved=%s", tmp);
	snprintf(moved, sizeof(moved), "/fntrace-moved%s", file + strlen(tmp));
	o.prefix_map = maps;
	o.n_prefix_map = 3;
	s = symbols_new(&o);
	memset(wrong, 0xab, sizeof(wrong));

	mod = symbols_add_module(s, file, wrong, sizeof(wrong));
	mod2 = symbols_add_module(s, file, id, n);
	CHECK(mod >= 0 && mod2 >= 0 && mod != mod2, "same path, other build-id: handles %d %d", mod, mod2);
	w = symbols_module_warning(s, mod);
	CHECK(w && strstr(w, file) && strstr(w, "does not match") && strstr(w, "rebuilt") &&
	      strstr(w, "abababab") && !strchr(w, '\n'), "mismatch warning '%s'", w ? w : "(null)");
	rc = symbols_func(s, mod, a, 1, &f);
	snprintf(want, sizeof(want), "%s+0x%" PRIx64, basename_of(file), a);
	CHECK(rc == -1 && !strcmp(f.name, want) && !strcmp(f.short_name, want) && !f.file && !f.line,
	      "mismatch: %d '%s', want '%s'", rc, f.name, want);
	CHECK(symbols_srcline(s, mod, a, &sf, &sl) == -1, "mismatch srcline");
	/* the matching registration of the same file is fine */
	CHECK(!symbols_module_warning(s, mod2), "match warning '%s'", symbols_module_warning(s, mod2));
	CHECK(symbols_func(s, mod2, a, 0, &f) == 0 && !strcmp(f.name, "leaf"), "match name '%s'", f.name);

	/* missing file */
	miss = symbols_add_module(s, "/no/such/dir/prog", id, n);
	w = symbols_module_warning(s, miss);
	CHECK(miss >= 0 && w && strstr(w, "cannot open '/elsewhere/prog': No such file or directory"),
	      "missing warning '%s'", w ? w : "(null)");
	CHECK(!strcmp(symbols_module_path(s, miss), "/elsewhere/prog"), "first map wins: '%s'",
	      symbols_module_path(s, miss));
	rc = symbols_func(s, miss, 0x1234, 1, &f);
	CHECK(rc == -1 && !strcmp(f.name, "prog+0x1234"), "missing: %d '%s'", rc, f.name);

	/* prefix map to the real place */
	mod = symbols_add_module(s, moved, id, n);
	CHECK(!symbols_module_warning(s, mod) && !strcmp(symbols_module_path(s, mod), file),
	      "prefix map: path '%s' warning '%s'", symbols_module_path(s, mod), symbols_module_warning(s, mod));
	CHECK(symbols_func(s, mod, a, 0, &f) == 0 && !strcmp(f.name, "leaf"), "prefix map name '%s'", f.name);

	/* a directory, an empty path, NULL build-id */
	mod = symbols_add_module(s, tmp, NULL, 0);
	CHECK(mod >= 0 && symbols_module_warning(s, mod), "directory: no warning");
	CHECK(symbols_func(s, mod, 1, 1, &f) == -1, "directory: a name");
	mod = symbols_add_module(s, "", NULL, 0);
	CHECK(mod >= 0 && symbols_module_warning(s, mod), "empty path: no warning");
	CHECK(symbols_func(s, mod, 1, 1, &f) == -1, "empty path: a name");
	symbols_free(s);

	/* not an ELF file */
	s = symbols_new(NULL);
	char src[4400];
	snprintf(src, sizeof(src), "%s/prog.c", fixtures);
	mod = symbols_add_module(s, src, wrong, sizeof(wrong));
	CHECK(symbols_module_warning(s, mod) && symbols_func(s, mod, 1, 1, &f) == -1, "source file as ELF");
	symbols_free(s);
}

/* Debug info in DIR/.build-id/xx/rest.debug. */
static void check_debug_dir(const char *built)
{
	char prog[600], dbg[600], dbgfile[800], hexid[129];
	uint8_t id[64];
	size_t n;
	uint64_t a;
	struct sym_func f;
	struct symbols_options o = { 0 };
	const char *dirs[1];
	struct symbols *s;
	int mod, want = marker_line("prog.c", "leaf");
	char cwd[4096];

	snprintf(prog, sizeof(prog), "%s/dbgprog", tmp);
	snprintf(dbg, sizeof(dbg), "%s/dbg", tmp);
	if (run("cp '%s' '%s'", built, prog))
		return;
	n = build_id_of(prog, id, sizeof(id));
	if (!CHECK(n >= 2, "no build-id in %s", prog))
		return;
	for (size_t i = 0; i < n; i++)
		sprintf(hexid + 2 * i, "%02x", id[i]);
	snprintf(dbgfile, sizeof(dbgfile), "%s/.build-id/%.2s/%s.debug", dbg, hexid, hexid + 2);
	if (run("mkdir -p '%s/.build-id/%.2s' && objcopy --only-keep-debug '%s' '%s' && strip -g '%s'",
		dbg, hexid, prog, dbgfile, prog))
		return;
	a = addr_of(prog, "leaf", NULL);

	s = symbols_new(NULL);
	mod = symbols_add_module(s, prog, id, n);
	CHECK(symbols_func(s, mod, a, 1, &f) == 0 && !strcmp(f.name, "leaf") && f.line == 0 && !f.file,
	      "stripped, no debug dir: '%s' %s:%d", f.name, f.file ? f.file : "(null)", f.line);
	symbols_free(s);

	dirs[0] = dbg;
	o.debug_dirs = dirs;
	o.n_debug_dirs = 1;
	s = symbols_new(&o);
	mod = symbols_add_module(s, prog, id, n);
	CHECK(symbols_func(s, mod, a, 1, &f) == 0 && !strcmp(f.name, "leaf") && f.line == want && f.file &&
	      !strcmp(basename_of(f.file), "prog.c"), "debug dir: '%s' %s:%d, want line %d", f.name,
	      f.file ? f.file : "(null)", f.line, want);
	symbols_free(s);

	/* a relative --debug-dir */
	if (getcwd(cwd, sizeof(cwd)) && !chdir(tmp)) {
		dirs[0] = "dbg";
		s = symbols_new(&o);
		CHECK(!chdir(cwd), "chdir back");
		mod = symbols_add_module(s, prog, id, n);
		CHECK(symbols_func(s, mod, a, 1, &f) == 0 && f.line == want, "relative debug dir: line %d",
		      f.line);
		symbols_free(s);
		dirs[0] = dbg;
	}

	/* nothing left in the program: the debug file's symbol table */
	if (run("strip --strip-all '%s'", prog))
		return;
	s = symbols_new(&o);
	mod = symbols_add_module(s, prog, id, n);
	CHECK(symbols_func(s, mod, a, 1, &f) == 0 && !strcmp(f.name, "leaf") && f.line == want,
	      "strip-all + debug dir: '%s' line %d", f.name, f.line);
	symbols_free(s);
}

/* Point the sections named at file offsets past the end of the file. */
static int sections_past_end(const char *file, const char *const *names, size_t n_names)
{
	int fd = open(file, O_RDWR), moved = 0;
	struct stat st;
	size_t shstrndx;
	Elf *e;

	if (fd < 0 || fstat(fd, &st))
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	if (!e || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx)) {
		close(fd);
		return -1;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		for (size_t i = 0; nm && i < n_names; i++) {
			uint64_t off = (uint64_t)st.st_size + 0x100000;
			if (strcmp(nm, names[i]))
				continue;
			/* sh_offset: 24 bytes into an Elf64_Shdr */
			moved += pwrite(fd, &off, 8, (off_t)(eh.e_shoff + elf_ndxscn(scn) * eh.e_shentsize + 24)) == 8;
		}
	}
	elf_end(e);
	close(fd);
	return moved;
}

/* A module file cut while it is read: libelf has mapped it, the pages past
 * the cut are gone (SIGBUS on touch without the guard). */
static void check_cut_module(const char *built)
{
	static const char *const secs[] = { ".symtab", ".strtab", ".debug_info", ".debug_line" };
	char prog[600];
	uint8_t id[64];
	size_t n;
	uint64_t a = addr_of(built, "leaf", NULL);
	struct symbols *s;
	struct sym_func f;
	const char *w;
	char want[64];
	int mod, rc;

	snprintf(prog, sizeof(prog), "%s/cut/prog", tmp);
	if (run("mkdir -p %s/cut && cp %s %s", tmp, built, prog) || !a)
		return;
	n = build_id_of(prog, id, sizeof(id));
	snprintf(want, sizeof(want), "prog+0x%" PRIx64, a);
	s = symbols_new(NULL);
	mod = symbols_add_module(s, prog, id, n);
	CHECK(!symbols_module_warning(s, mod), "before the cut: warning '%s'", symbols_module_warning(s, mod));
	CHECK(truncate(prog, 4096) == 0, "truncate: %s", strerror(errno));
	rc = symbols_func(s, mod, a, 1, &f);
	CHECK(rc == -1 && !strcmp(f.name, want) && !f.file, "cut while read: %d '%s' %s, want '%s'", rc, f.name,
	      f.file ? f.file : "", want);
	w = symbols_module_warning(s, mod);
	CHECK(w && strstr(w, prog) && strstr(w, "shrank while it was read") && !strchr(w, '\n'),
	      "cut while read: warning '%s'", w ? w : "(null)");
	symbols_free(s);

	/* the sections the names and lines come from lie past the end of the file */
	run("cp %s %s", built, prog);
	CHECK(sections_past_end(prog, secs, 4) == 4, "%s: sections moved past the end", prog);
	s = symbols_new(NULL);
	mod = symbols_add_module(s, prog, id, n);
	rc = symbols_func(s, mod, a, 1, &f);
	CHECK(rc == -1 && !strcmp(f.name, want) && !f.file, "sections past the end: %d '%s' %s, want '%s'", rc,
	      f.name, f.file ? f.file : "", want);
	CHECK(symbols_srcline(s, mod, a, &w, &rc) == -1, "sections past the end: a source line");
	symbols_free(s);
}

/* CPU time of registering n distinct missing module files, and each again
 * (the same handle back) */
static double add_modules_cpu(unsigned n)
{
	struct symbols *s = symbols_new(NULL);
	struct timespec a, b;
	unsigned same = 0;
	char path[64];

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < n; i++) {
			uint8_t id[20] = { (uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16) };
			snprintf(path, sizeof(path), "/nonexistent/fntrace-test/lib%u.so", i % (n / 2));
			int h = symbols_add_module(s, path, id, sizeof(id));
			same += pass && h == (int)i;
		}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	CHECK(same == n, "%u of %u modules registered again got their first handle", same, n);
	symbols_free(s);
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
}

static void check_many_modules(void)
{
	double small = add_modules_cpu(12500), big = add_modules_cpu(100000);
	/* 8 times the modules: linear is ~8x (0.06 s against 0.5 s here), the
	 * old scan per registration 64x (0.7 s against 120 s) */
	printf("modules: 12,500 registered %.3f s, 100,000 %.3f s of CPU\n", small, big);
	CHECK(big < 16 * small + 1.0, "registering 100,000 modules took %.3f s of CPU against %.3f s for 12,500",
	      big, small);
}

static int find_fixtures(const char *argv0)
{
	struct stat st;
	char *copy, *slash;

	snprintf(fixtures, sizeof(fixtures), "%s", "tests/unit/symbols-fixtures");
	if (!stat(fixtures, &st) && fixtures[0] != '/') {
		char cwd[2048];
		if (!getcwd(cwd, sizeof(cwd)))
			return -1;
		snprintf(fixtures, sizeof(fixtures), "%s/tests/unit/symbols-fixtures", cwd);
		return 0;
	}
	/* <repo>/<O>/tests/test-symbols */
	copy = realpath(argv0, NULL);
	if (!copy)
		return -1;
	for (int i = 0; i < 3 && (slash = strrchr(copy, '/')); i++)
		*slash = 0;
	snprintf(fixtures, sizeof(fixtures), "%s/tests/unit/symbols-fixtures", copy);
	free(copy);
	return stat(fixtures, &st);
}

int main(int argc, char **argv)
{
	static const char *const cc[] = { "cc", "clang" };
	char out[600];

	(void)argc;
	if (find_fixtures(argv[0])) {
		printf("cannot find tests/unit/symbols-fixtures (run from the repository root)\n");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "/tmp/fntrace-test-symbols.XXXXXX");
	if (!mkdtemp(tmp)) {
		printf("mkdtemp: %s\n0 passed, 1 failed\n", strerror(errno));
		return 1;
	}
	have_clang = system("clang --version >/dev/null 2>&1") == 0;
	if (!have_clang)
		printf("note: no clang, testing gcc builds only\n");

	for (size_t i = 0; i < 2; i++) {
		if (i == 1 && !have_clang)
			break;
		/* PIE -O0, -no-pie -O2, PIE -O2 without -g, a shared library */
		snprintf(out, sizeof(out), "%s/%s-pie/prog", tmp, cc[i]);
		if (!run("mkdir -p %s/%s-pie && %s -g -O0 -fPIE -pie -o %s %s/prog.c", tmp, cc[i], cc[i], out,
			 fixtures)) {
			check_c_prog(out, 1);
			check_cut_module(out);
		}
		snprintf(out, sizeof(out), "%s/%s-nopie/prog", tmp, cc[i]);
		if (!run("mkdir -p %s/%s-nopie && %s -g -O2 -fno-PIE -no-pie -o %s %s/prog.c", tmp, cc[i], cc[i],
			 out, fixtures)) {
			check_c_prog(out, 1);
			if (i == 0)
				check_mismatch(out);
			check_debug_dir(out);
		}
		snprintf(out, sizeof(out), "%s/%s-nodebug/prog", tmp, cc[i]);
		if (!run("mkdir -p %s/%s-nodebug && %s -O2 -o %s %s/prog.c", tmp, cc[i], cc[i], out, fixtures))
			check_c_prog(out, 0);
		snprintf(out, sizeof(out), "%s/%s-lib/libfix.so", tmp, cc[i]);
		if (!run("mkdir -p %s/%s-lib && %s -g -O1 -shared -fPIC -o %s %s/lib.c", tmp, cc[i], cc[i], out,
			 fixtures))
			check_lib(out);
	}
	snprintf(out, sizeof(out), "%s/gxx/prog", tmp);
	if (!run("mkdir -p %s/gxx && g++ -g -O0 -o %s %s/prog.cc", tmp, out, fixtures))
		check_cxx_prog(out);
	if (have_clang) {
		snprintf(out, sizeof(out), "%s/clangxx/prog", tmp);
		if (!run("mkdir -p %s/clangxx && clang++ -g -O2 -o %s %s/prog.cc", tmp, out, fixtures))
			check_cxx_prog(out);
	}
	check_many_modules();
	if (n_pass == 0)
		n_fail++;
	run("rm -rf '%s'", tmp);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
