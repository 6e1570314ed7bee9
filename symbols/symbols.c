/*
 * symbols.c - addresses to names with elfutils libdwfl.
 *
 * One Dwfl per module file, reported at load bias 0, so lookups take file
 * virtual addresses (runtime address - the bias the runtime recorded).  The
 * build-id the runtime read from memory is compared with the file's: a file
 * rebuilt since the trace was taken is never used for names.  Debug files
 * are found by libdwfl's standard search (.build-id under /usr/lib/debug
 * and each --debug-dir, the .gnu_debuglink, the file itself).
 *
 * Results are cached per (module, address): DWARF is consulted once per
 * distinct function or call site, whatever the number of events.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/symbols.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct module {
	char *path;             /* as recorded */
	char *real_path;        /* after --prefix-map */
	char *base;             /* basename, for module+0xoff names */
	uint8_t build_id[32];
	size_t build_id_len;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	char *warning;
	int usable;             /* names from this file can be trusted */
};

struct entry {
	int module;
	uint64_t vaddr;
	int kind;               /* 0 function, 1 srcline */
	int ret;
	int has_line;
	struct sym_func f;
};

struct symbols {
	struct symbols_options opts;
	char *debuginfo_path;
	Dwfl_Callbacks callbacks;
	struct module *modules;
	size_t n_modules;
	struct entry *entries;
	size_t n_entries, cap_entries;
	uint32_t *hash;         /* index + 1, 0 empty */
	size_t hash_size;
	char **strings;         /* owned strings handed out */
	size_t n_strings, cap_strings;
};

static void *xrealloc_s(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("fntrace: out of memory\n", stderr);
		exit(1);
	}
	return q;
}

static char *keep(struct symbols *s, char *str)
{
	if (!str)
		return NULL;
	if (s->n_strings == s->cap_strings) {
		s->cap_strings = s->cap_strings ? 2 * s->cap_strings : 64;
		s->strings = xrealloc_s(s->strings, s->cap_strings * sizeof(*s->strings));
	}
	s->strings[s->n_strings++] = str;
	return str;
}

static char *dupstr(struct symbols *s, const char *str)
{
	char *d = strdup(str ? str : "");
	if (!d) {
		fputs("fntrace: out of memory\n", stderr);
		exit(1);
	}
	return keep(s, d);
}

struct symbols *symbols_new(const struct symbols_options *opts)
{
	struct symbols *s = calloc(1, sizeof(*s));
	size_t len = 64;
	if (!s)
		return NULL;
	if (opts)
		s->opts = *opts;
	for (size_t i = 0; i < s->opts.n_debug_dirs; i++)
		len += strlen(s->opts.debug_dirs[i]) + 1;
	s->debuginfo_path = malloc(len);
	if (!s->debuginfo_path) {
		free(s);
		return NULL;
	}
	/* the default search (the file itself, .debug next to it, /usr/lib/debug)
	 * plus each --debug-dir as another root for .build-id/ and debuglink */
	strcpy(s->debuginfo_path, ":.debug:/usr/lib/debug");
	for (size_t i = 0; i < s->opts.n_debug_dirs; i++) {
		strcat(s->debuginfo_path, ":");
		strcat(s->debuginfo_path, s->opts.debug_dirs[i]);
	}
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	return s;
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_modules; i++) {
		if (s->modules[i].dwfl)
			dwfl_end(s->modules[i].dwfl);
		free(s->modules[i].path);
		free(s->modules[i].real_path);
		free(s->modules[i].base);
		free(s->modules[i].warning);
	}
	free(s->modules);
	free(s->entries);
	free(s->hash);
	for (size_t i = 0; i < s->n_strings; i++)
		free(s->strings[i]);
	free(s->strings);
	free(s->debuginfo_path);
	free(s);
}

static char *apply_prefix_map(const struct symbols_options *o, const char *path)
{
	for (size_t i = 0; i < o->n_prefix_map; i++) {
		const char *eq = strchr(o->prefix_map[i], '=');
		size_t ol;
		if (!eq)
			continue;
		ol = (size_t)(eq - o->prefix_map[i]);
		if (ol && !strncmp(path, o->prefix_map[i], ol)) {
			char *r = malloc(strlen(eq + 1) + strlen(path + ol) + 1);
			if (!r)
				exit(1);
			strcpy(r, eq + 1);
			strcat(r, path + ol);
			return r;
		}
	}
	return strdup(path);
}

static void hex(const uint8_t *b, size_t n, char *out, size_t outlen)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 3 <= outlen; i++, k += 2)
		sprintf(out + k, "%02x", b[i]);
	out[k] = 0;
}

static void module_open(struct symbols *s, struct module *m)
{
	char msg[4400], rec[80], disk[80];
	const unsigned char *bits;
	GElf_Addr bid_vaddr;
	int fd, n;

	fd = open(m->real_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, sizeof(msg), "cannot open '%s': %s; its functions are shown as %s+0xoffset",
			 m->real_path, strerror(errno), m->base);
		m->warning = strdup(msg);
		return;
	}
	m->dwfl = dwfl_begin(&s->callbacks);
	if (!m->dwfl) {
		close(fd);
		return;
	}
	dwfl_report_begin(m->dwfl);
	/* dwfl takes the fd; bias 0: lookups use file virtual addresses */
	m->mod = dwfl_report_elf(m->dwfl, m->base, m->real_path, fd, 0, true);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod) {
		snprintf(msg, sizeof(msg), "'%s' is not a readable ELF file (%s); its functions are shown as "
			 "%s+0xoffset", m->real_path, dwfl_errmsg(-1), m->base);
		m->warning = strdup(msg);
		return;
	}
	n = dwfl_module_build_id(m->mod, &bits, &bid_vaddr);
	if (m->build_id_len && (n != (int)m->build_id_len || memcmp(bits, m->build_id, m->build_id_len))) {
		hex(m->build_id, m->build_id_len, rec, sizeof(rec));
		if (n > 0)
			hex(bits, (size_t)n, disk, sizeof(disk));
		else
			strcpy(disk, "none");
		snprintf(msg, sizeof(msg), "'%s' does not match the traced build (build-id %s recorded, %s on "
			 "disk): it was rebuilt since; its functions are shown as %s+0xoffset",
			 m->real_path, rec, disk, m->base);
		m->warning = strdup(msg);
		return;
	}
	m->usable = 1;
}

int symbols_add_module(struct symbols *s, const char *path, const uint8_t *build_id, size_t build_id_len)
{
	struct module *m;
	const char *slash;

	if (build_id_len > sizeof(m->build_id))
		build_id_len = sizeof(m->build_id);
	for (size_t i = 0; i < s->n_modules; i++) {
		m = &s->modules[i];
		if (!strcmp(m->path, path) && m->build_id_len == build_id_len &&
		    !memcmp(m->build_id, build_id, build_id_len))
			return (int)i;
	}
	s->modules = xrealloc_s(s->modules, (s->n_modules + 1) * sizeof(*s->modules));
	m = &s->modules[s->n_modules];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	m->real_path = apply_prefix_map(&s->opts, path);
	slash = strrchr(path, '/');
	m->base = strdup(slash ? slash + 1 : path);
	if (!m->path || !m->real_path || !m->base)
		exit(1);
	memcpy(m->build_id, build_id, build_id_len);
	m->build_id_len = build_id_len;
	module_open(s, m);
	return (int)s->n_modules++;
}

const char *symbols_module_warning(struct symbols *s, int module)
{
	if (module < 0 || (size_t)module >= s->n_modules)
		return NULL;
	return s->modules[module].warning;
}

const char *symbols_module_path(struct symbols *s, int module)
{
	if (module < 0 || (size_t)module >= s->n_modules)
		return NULL;
	return s->modules[module].real_path;
}

/* ---- cache ---- */

static uint64_t key_hash(int module, uint64_t vaddr, int kind)
{
	uint64_t h = (vaddr ^ ((uint64_t)(unsigned)module << 48) ^ ((uint64_t)kind << 62)) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 31);
}

static struct entry *cache_find(struct symbols *s, int module, uint64_t vaddr, int kind)
{
	if (!s->hash_size)
		return NULL;
	size_t mask = s->hash_size - 1, i = key_hash(module, vaddr, kind) & mask;
	while (s->hash[i]) {
		struct entry *e = &s->entries[s->hash[i] - 1];
		if (e->module == module && e->vaddr == vaddr && e->kind == kind)
			return e;
		i = (i + 1) & mask;
	}
	return NULL;
}

static struct entry *cache_add(struct symbols *s, int module, uint64_t vaddr, int kind)
{
	if (2 * (s->n_entries + 1) > s->hash_size) {
		size_t nsize = s->hash_size ? 2 * s->hash_size : 1024;
		uint32_t *nh = calloc(nsize, sizeof(*nh));
		if (!nh)
			exit(1);
		for (size_t k = 0; k < s->n_entries; k++) {
			struct entry *e = &s->entries[k];
			size_t j = key_hash(e->module, e->vaddr, e->kind) & (nsize - 1);
			while (nh[j])
				j = (j + 1) & (nsize - 1);
			nh[j] = (uint32_t)k + 1;
		}
		free(s->hash);
		s->hash = nh;
		s->hash_size = nsize;
	}
	if (s->n_entries == s->cap_entries) {
		s->cap_entries = s->cap_entries ? 2 * s->cap_entries : 256;
		s->entries = xrealloc_s(s->entries, s->cap_entries * sizeof(*s->entries));
	}
	struct entry *e = &s->entries[s->n_entries];
	memset(e, 0, sizeof(*e));
	e->module = module;
	e->vaddr = vaddr;
	e->kind = kind;
	size_t mask = s->hash_size - 1, i = key_hash(module, vaddr, kind) & mask;
	while (s->hash[i])
		i = (i + 1) & mask;
	s->hash[i] = (uint32_t)s->n_entries + 1;
	s->n_entries++;
	return e;
}

/* ---- names ---- */

static int is_op_char(char c)
{
	return c && strchr("<>=!+-*/%&|^~[](),", c) != NULL;
}

/* Skip "operator..." starting at p (which points at "operator"); returns the
 * position after the operator's own characters. */
static const char *skip_operator(const char *p, const char *end)
{
	p += 8;
	if (p < end && (*p == ' ' || (*p >= 'a' && *p <= 'z'))) {
		/* operator new / delete / a conversion: a type name, maybe with [] */
		while (p < end && *p == ' ')
			p++;
		int depth = 0;
		while (p < end && (depth || (*p != '(' ))) {
			if (*p == '<')
				depth++;
			else if (*p == '>' && depth)
				depth--;
			p++;
		}
		return p;
	}
	if (p + 1 < end && p[0] == '(' && p[1] == ')')
		return p + 2;
	if (p + 1 < end && p[0] == '[' && p[1] == ']')
		return p + 2;
	while (p < end && is_op_char(*p) && *p != '(')
		p++;
	return p;
}

static int word_at(const char *s, const char *p, const char *w)
{
	size_t n = strlen(w);
	return !strncmp(p, w, n) && (p == s || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
						  (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9')));
}

/* "int ns::foo<int>(int, char const*) const" -> "ns::foo<int>" */
static char *short_name(const char *full)
{
	size_t len = strlen(full);
	const char *end = full + len, *params = NULL, *start = full;
	int depth = 0;

	/* find the top-level parameter list: the first '(' at depth 0 that
	 * is not part of an operator name or "(anonymous namespace)" */
	for (const char *p = full; p < end; p++) {
		if (word_at(full, p, "operator")) {
			p = skip_operator(p, end) - 1;
			continue;
		}
		if (*p == '<' || *p == '[')
			depth++;
		else if ((*p == '>' || *p == ']') && depth)
			depth--;
		else if (*p == '(' && depth == 0) {
			if (!strncmp(p, "(anonymous namespace)", 21)) {
				p += 20;
				continue;
			}
			params = p;
			break;
		} else if (*p == '(')
			depth++;
		else if (*p == ')' && depth)
			depth--;
		else if (*p == '{') {            /* {lambda(int)#1} */
			int d = 1;
			while (++p < end && d)
				d += *p == '{' ? 1 : *p == '}' ? -1 : 0;
			p--;
		}
	}
	if (!params)
		return strdup(full);
	/* a return type ends at the last top-level space before the name */
	depth = 0;
	for (const char *p = full; p < params; p++) {
		if (word_at(full, p, "operator")) {
			p = skip_operator(p, params) - 1;
			continue;
		}
		if (*p == '<' || *p == '(' || *p == '[' || *p == '{')
			depth++;
		else if ((*p == '>' || *p == ')' || *p == ']' || *p == '}') && depth)
			depth--;
		else if (*p == ' ' && depth == 0)
			start = p + 1;
	}
	char *r = malloc((size_t)(params - start) + 1);
	if (!r)
		exit(1);
	memcpy(r, start, (size_t)(params - start));
	r[params - start] = 0;
	return r;
}

static void fallback(struct symbols *s, struct module *m, uint64_t vaddr, struct sym_func *out)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, m ? m->base : "?", vaddr);
	out->name = out->short_name = dupstr(s, buf);
	out->start = vaddr;
}

/* The compile unit that covers vaddr.  libdwfl finds it through
 * .debug_aranges, which clang does not emit by default: then every unit's
 * ranges are checked. */
static int cu_for(struct module *m, uint64_t vaddr, Dwarf_Die *cu, Dwarf_Addr *bias)
{
	Dwarf_Die *d = dwfl_module_addrdie(m->mod, vaddr, bias);
	if (d) {
		*cu = *d;
		return 0;
	}
	Dwarf *dw = dwfl_module_getdwarf(m->mod, bias);
	if (!dw)
		return -1;
	Dwarf_CU *unit = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	Dwarf_Half version;
	while (dwarf_get_units(dw, unit, &unit, &version, &unit_type, &cudie, &subdie) == 0) {
		if (dwarf_haspc(&cudie, vaddr - *bias) > 0) {
			*cu = cudie;
			return 0;
		}
	}
	return -1;
}

static void line_of(struct module *m, uint64_t vaddr, const char **file, int *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(m->mod, vaddr);
	int ln = 0;
	const char *f;
	*file = NULL;
	*line = 0;
	if (l) {
		f = dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL);
		if (f && ln > 0) {
			*file = f;
			*line = ln;
		}
		return;
	}
	Dwarf_Die cu;
	Dwarf_Addr bias;
	if (cu_for(m, vaddr, &cu, &bias))
		return;
	Dwarf_Line *dl = dwarf_getsrc_die(&cu, vaddr - bias);
	if (dl && (f = dwarf_linesrc(dl, NULL, NULL)) && !dwarf_lineno(dl, &ln) && ln > 0) {
		*file = f;
		*line = ln;
	}
}

/* A function's own line: the declaration line of the subprogram that
 * starts at vaddr (where `int f(int x)` is written), else the line of its
 * first instruction. */
static void func_line(struct module *m, uint64_t vaddr, const char **file, int *line)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Addr bias;
	int n;
	if (!cu_for(m, vaddr, &cu, &bias) && (n = dwarf_getscopes(&cu, vaddr - bias, &scopes)) > 0) {
		for (int i = 0; i < n; i++) {
			int ln = 0;
			const char *f;
			if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
				continue;
			f = dwarf_decl_file(&scopes[i]);
			if (f && !dwarf_decl_line(&scopes[i], &ln) && ln > 0) {
				*file = f;
				*line = ln;
				free(scopes);
				return;
			}
			break;
		}
	}
	free(scopes);
	line_of(m, vaddr, file, line);
}

int symbols_func(struct symbols *s, int module, uint64_t vaddr, int with_line, struct sym_func *out)
{
	struct entry *e = cache_find(s, module, vaddr, 0);
	struct module *m = module >= 0 && (size_t)module < s->n_modules ? &s->modules[module] : NULL;

	if (!e) {
		e = cache_add(s, module, vaddr, 0);
		e->ret = -1;
		if (m && m->usable) {
			GElf_Off off = 0;
			GElf_Sym sym;
			const char *name = dwfl_module_addrinfo(m->mod, vaddr, &off, &sym, NULL, NULL, NULL);
			if (name) {
				int status = -1;
				char *dem = NULL;
				if (!s->opts.no_demangle && name[0] == '_' && name[1] == 'Z')
					dem = __cxa_demangle(name, NULL, NULL, &status);
				if (dem && status == 0) {
					e->f.name = keep(s, dem);
					e->f.short_name = keep(s, short_name(dem));
				} else {
					free(dem);
					e->f.name = e->f.short_name = dupstr(s, name);
				}
				e->f.start = vaddr - off;
				e->ret = 0;
			}
		}
		if (e->ret)
			fallback(s, m, vaddr, &e->f);
	}
	if (with_line && !e->has_line) {
		e->has_line = 1;
		if (m && m->usable && !e->ret) {
			const char *file;
			int line;
			func_line(m, e->f.start, &file, &line);
			e->f.file = file ? dupstr(s, file) : NULL;
			e->f.line = line;
		}
	}
	*out = e->f;
	if (!with_line && !e->has_line) {
		out->file = NULL;
		out->line = 0;
	}
	return e->ret;
}

int symbols_srcline(struct symbols *s, int module, uint64_t vaddr, const char **file, int *line)
{
	struct entry *e = cache_find(s, module, vaddr, 1);
	struct module *m = module >= 0 && (size_t)module < s->n_modules ? &s->modules[module] : NULL;
	if (!e) {
		e = cache_add(s, module, vaddr, 1);
		e->ret = -1;
		if (m && m->usable) {
			const char *f;
			int l;
			line_of(m, vaddr, &f, &l);
			if (f) {
				e->f.file = dupstr(s, f);
				e->f.line = l;
				e->ret = 0;
			}
		}
	}
	*file = e->f.file;
	*line = e->f.line;
	return e->ret;
}
