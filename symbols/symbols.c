/*
 * symbols.c - addresses to names with elfutils libdwfl.
 *
 * Owns the offline symbolizer: one Dwfl per module file, reported at load
 * bias 0 so that lookups take file virtual addresses (runtime address - the
 * bias the runtime recorded), for ET_EXEC, PIE and shared libraries alike.
 * The build-id the runtime read from memory is compared with the file's: a
 * file rebuilt since the trace was taken is never used for names, because
 * its names would be silently wrong.  Debug files are found by libdwfl's
 * standard search (.build-id under /usr/lib/debug and under each --debug-dir,
 * the .gnu_debuglink, the file itself), run by safe-debug.c so that no path
 * a trace or an ELF file names can block the reader or open a device.
 *
 * Results are cached per (module, address): libdw is consulted once per
 * distinct function or call site, whatever the number of events.  Every
 * string handed out lives until symbols_free().  Allocation failures are
 * answered with the module+0xoffset fallback, never with exit().
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols/cxxname.h"
#include "symbols/symbols.h"
#include "symbols/safe-debug.h"
#include "symbols/symtab.h"
#include "format/safeio.h"

/* a compile unit's address range, for units libdwfl cannot find by
 * .debug_aranges (clang does not emit them by default) */
struct cu_range {
	Dwarf_Addr low, high;
	Dwarf_Die cu;
};

struct module {
	char *path;             /* as recorded */
	char *real_path;        /* after --prefix-map */
	char *base;             /* basename, for module+0xoff names */
	uint8_t *build_id;
	size_t build_id_len;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	char *warning;
	struct debug_search *search;   /* its Dwfl_Module's userdata (safe-debug.h) */
	int usable;             /* names from this file can be trusted */
	int loaded;             /* module_load ran: search->dwarf_refused holds */
	int syms_loaded;        /* module_symbols ran */
	/* libelf's mappings of its main, debug and dwz files, guarded against
	 * SIGBUS (format/safeio.h): the bytes read as zeros past a cut */
	const void *guarded[3];
	size_t n_guarded;
	uint64_t cut;
	char *cut_warning;
	int ranges_done;
	struct cu_range *ranges;
	size_t n_ranges;
	Dwarf_Addr ranges_bias;
	struct symtab *saved;   /* the table record saved (symtab.h), used when the file cannot be */
};

enum entry_kind { ENTRY_FUNC, ENTRY_SRCLINE };

struct entry {
	int module;
	uint64_t vaddr;
	enum entry_kind kind;
	int ret;
	int has_line;           /* ENTRY_FUNC: file/line were looked up */
	char *name;             /* malloc'd */
	char *short_name;       /* malloc'd, or == name */
	char *sig_name;         /* malloc'd, or == name */
	char *mangled;          /* a C++ name as the symbol table spells it: malloc'd, == name, or NULL */
	const char *structor;   /* static, or NULL */
	char *file;             /* malloc'd or NULL */
	uint64_t start;
	uint64_t size;          /* the symbol's st_size */
	int line;
};

struct symbols {
	char **debug_dirs;
	size_t n_debug_dirs;
	char **prefix_map;
	size_t n_prefix_map;
	char **symtab_dirs;
	size_t n_symtab_dirs;
	int demangle;           /* enum symbols_demangle */
	uint64_t trace_start_ns;
	char *debuginfo_path;
	Dwfl_Callbacks callbacks;
	struct module *modules;
	size_t n_modules, cap_modules;
	size_t *module_hash;    /* by (path, build-id): index + 1, 0 empty */
	size_t module_hash_size;
	uint64_t hash_seed;     /* paths come from a trace: fnt_hash_seed() */
	struct entry **entries;
	size_t n_entries, cap_entries;
	size_t *hash;           /* index + 1, 0 empty */
	size_t hash_size;
};

static char **copy_strv(const char *const *v, size_t n)
{
	char **r = calloc(n ? n : 1, sizeof(*r));
	if (!r)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		r[i] = strdup(v[i] ? v[i] : "");
		if (!r[i]) {
			while (i)
				free(r[--i]);
			free(r);
			return NULL;
		}
	}
	return r;
}

static void free_strv(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* libdwfl only searches absolute directories for .build-id/ files */
static char *absolute_dir(const char *dir)
{
	char *r, *cwd;

	if (dir[0] == '/')
		return strdup(dir);
	r = realpath(dir, NULL);
	if (r)
		return r;
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return strdup(dir);
	r = str_printf("%s/%s", cwd, dir);
	free(cwd);
	return r;
}

static int build_debuginfo_path(struct symbols *s)
{
	size_t len = 64;
	char **abs = calloc(s->n_debug_dirs ? s->n_debug_dirs : 1, sizeof(*abs));
	int ret = -1;

	if (!abs)
		return -1;
	for (size_t i = 0; i < s->n_debug_dirs; i++) {
		abs[i] = absolute_dir(s->debug_dirs[i]);
		if (!abs[i])
			goto out;
		len += strlen(abs[i]) + 1;
	}
	s->debuginfo_path = malloc(len);
	if (!s->debuginfo_path)
		goto out;
	/* libdwfl's default (the file's own directory, .debug/ next to it,
	 * /usr/lib/debug) plus each --debug-dir as another root searched for
	 * .build-id/xx/rest.debug and for the .gnu_debuglink name */
	strcpy(s->debuginfo_path, ":.debug:/usr/lib/debug");
	for (size_t i = 0; i < s->n_debug_dirs; i++) {
		if (!abs[i][0] || strchr(abs[i], ':'))
			continue;       /* ':' separates entries: cannot be expressed */
		strcat(s->debuginfo_path, ":");
		strcat(s->debuginfo_path, abs[i]);
	}
	ret = 0;
out:
	free_strv(abs, s->n_debug_dirs);
	return ret;
}

struct symbols *symbols_new(const struct symbols_options *opts)
{
	struct symbols *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (opts) {
		s->n_debug_dirs = opts->debug_dirs ? opts->n_debug_dirs : 0;
		s->n_prefix_map = opts->prefix_map ? opts->n_prefix_map : 0;
		s->demangle = opts->no_demangle ? SYMBOLS_DEMANGLE_NO : opts->demangle;
		s->trace_start_ns = opts->trace_start_ns;
		s->n_symtab_dirs = opts->symtab_dirs ? opts->n_symtab_dirs : 0;
		s->debug_dirs = copy_strv(opts->debug_dirs, s->n_debug_dirs);
		s->prefix_map = copy_strv(opts->prefix_map, s->n_prefix_map);
		s->symtab_dirs = copy_strv(opts->symtab_dirs, s->n_symtab_dirs);
		if (!s->debug_dirs || !s->prefix_map || !s->symtab_dirs)
			goto fail;
	}
	if (build_debuginfo_path(s))
		goto fail;
	s->hash_seed = fnt_hash_seed();
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = safe_find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	return s;
fail:
	symbols_free(s);
	return NULL;
}

/* libelf maps a module's files (elf_begin with ELF_C_READ_MMAP_PRIVATE, in
 * libdwfl): a file cut while it is read would kill the reader with SIGBUS
 * at the first touch of a page past the cut.  Each mapping is guarded as
 * trace files are; such pages read as zeros, which libelf and libdw take
 * for empty or corrupt data. */
static void module_guard(struct module *m, Elf *e)
{
	size_t n = 0;
	char *raw;

	if (!e || m->n_guarded == sizeof(m->guarded) / sizeof(m->guarded[0]))
		return;
	raw = elf_rawfile(e, &n);
	if (!raw || !n)
		return;
	for (size_t i = 0; i < m->n_guarded; i++)
		if (m->guarded[i] == raw)
			return;
	fnt_mapguard_add(raw, n);
	m->guarded[m->n_guarded++] = raw;
}

/* done with libdwfl for this module: its mappings go, and their guards */
static void module_close_dwfl(struct module *m)
{
	for (size_t i = 0; i < m->n_guarded; i++) {
		m->cut += fnt_mapguard_cut(m->guarded[i]);
		fnt_mapguard_remove(m->guarded[i]);
	}
	m->n_guarded = 0;
	if (m->dwfl)
		dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->mod = NULL;
}

static void entry_free(struct entry *e)
{
	if (!e)
		return;
	if (e->short_name != e->name)
		free(e->short_name);
	if (e->sig_name != e->name)
		free(e->sig_name);
	if (e->mangled != e->name)
		free(e->mangled);
	free(e->name);
	free(e->file);
	free(e);
}

static void module_release(struct module *m)
{
	module_close_dwfl(m);
	free(m->cut_warning);
	free(m->path);
	free(m->real_path);
	free(m->base);
	free(m->build_id);
	free(m->warning);
	if (m->search)
		free(m->search->refused);
	free(m->search);
	free(m->ranges);
	if (m->saved)
		symtab_release(m->saved);
	free(m->saved);
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_modules; i++)
		module_release(&s->modules[i]);
	free(s->modules);
	free(s->module_hash);
	for (size_t i = 0; i < s->n_entries; i++)
		entry_free(s->entries[i]);
	free(s->entries);
	free(s->hash);
	free_strv(s->debug_dirs, s->n_debug_dirs);
	free_strv(s->prefix_map, s->n_prefix_map);
	free_strv(s->symtab_dirs, s->n_symtab_dirs);
	free(s->debuginfo_path);
	free(s);
}

/* ---- modules ---- */

/* "OLD=NEW": a path starting with OLD starts with NEW instead; the first
 * matching entry wins */
static char *apply_prefix_map(struct symbols *s, const char *path)
{
	for (size_t i = 0; i < s->n_prefix_map; i++) {
		const char *map = s->prefix_map[i], *eq = strchr(map, '=');
		size_t old_len;

		if (!eq || eq == map)
			continue;
		old_len = (size_t)(eq - map);
		if (!strncmp(path, map, old_len))
			return str_printf("%s%s", eq + 1, path + old_len);
	}
	return strdup(path);
}

static char *hex(const uint8_t *b, size_t n)
{
	char *r = malloc(2 * n + 1);
	if (!r)
		return NULL;
	for (size_t i = 0; i < n; i++)
		sprintf(r + 2 * i, "%02x", b[i]);
	r[2 * n] = 0;
	return r;
}

static void module_open(struct symbols *s, struct module *m)
{
	const unsigned char *bits = NULL;
	GElf_Addr bid_vaddr;
	const char *why;
	void **userdata;
	int fd, n;

	/* probe first: dwfl would only say "no such file"-like things without
	 * errno, and a FIFO or a device must not be opened at all (a trace may
	 * name /dev/ptmx): stat, then open only a regular file, and hand that
	 * very fd to libdwfl */
	fd = fnt_open_regular(m->real_path, 0, NULL, &why);
	if (fd < 0) {
		m->warning = str_printf("cannot %s '%s': %s; names shown as %s+0xoffset",
					strncmp(why, "not a regular", 13) ? "open" : "use", m->real_path, why, m->base);
		return;
	}
	struct stat fst;
	int have_st = !fstat(fd, &fst);
	m->search = calloc(1, sizeof(*m->search));
	m->dwfl = m->search ? dwfl_begin(&s->callbacks) : NULL;
	if (!m->dwfl) {
		close(fd);
		m->warning = str_printf("cannot read '%s': %s; names shown as %s+0xoffset",
					m->real_path, dwfl_errmsg(-1), m->base);
		return;
	}
	m->search->path = s->debuginfo_path;
	dwfl_report_begin(m->dwfl);
	/* bias 0: the module's addresses are the file's virtual addresses */
	m->mod = dwfl_report_elf(m->dwfl, m->base, m->real_path, fd, 0, true);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (m->mod && dwfl_module_info(m->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL))
		*userdata = m->search;
	if (!m->mod)
		close(fd);      /* consumed by libdwfl only on success */
	if (!m->mod) {
		m->warning = str_printf("cannot read '%s' as an ELF file (%s); names shown as %s+0xoffset",
					m->real_path, dwfl_errmsg(-1), m->base);
		return;
	}
	{
		Dwarf_Addr bias;
		module_guard(m, dwfl_module_getelf(m->mod, &bias));
	}
	if (!m->build_id_len) {
		m->usable = 1;  /* nothing recorded to check against */
		if (have_st && s->trace_start_ns &&
		    (uint64_t)fst.st_mtim.tv_sec * 1000000000ull + (uint64_t)fst.st_mtim.tv_nsec > s->trace_start_ns)
			m->warning = str_printf("'%s' has no build-id to tell whether it is the traced build, and it "
						"was modified after the recording: its names may be wrong (link it "
						"with -Wl,--build-id)", m->real_path);
		return;
	}
	n = dwfl_module_build_id(m->mod, &bits, &bid_vaddr);
	if (n != (int)m->build_id_len || memcmp(bits, m->build_id, m->build_id_len)) {
		char *rec = hex(m->build_id, m->build_id_len);
		char *disk = n > 0 ? hex(bits, (size_t)n) : strdup("none");

		m->warning = str_printf("'%s' does not match the traced build (build-id %s recorded, %s on disk): "
					"it was rebuilt since; names shown as %s+0xoffset",
					m->real_path, rec ? rec : "?", disk ? disk : "?", m->base);
		free(rec);
		free(disk);
		module_close_dwfl(m);   /* never used: no need to keep it */
		return;
	}
	m->usable = 1;
}

/* The module file cannot be used: a copy of it by build-id under a debug
 * directory (ROOT/.build-id/xx/rest, where `fntrace archive` puts the
 * modules, as perf's build-id cache does) is the same file. */
static void module_use_copy(struct symbols *s, struct module *m)
{
	char *hexid = m->build_id_len > 1 ? hex(m->build_id, m->build_id_len) : NULL;

	for (size_t i = 0; hexid && i < s->n_debug_dirs; i++) {
		char *copy = str_printf("%s/.build-id/%.2s/%s", s->debug_dirs[i], hexid, hexid + 2);
		struct stat st;
		char *warning = m->warning, *real = m->real_path;

		if (!copy || stat(copy, &st) || !S_ISREG(st.st_mode)) {
			free(copy);
			continue;
		}
		m->warning = NULL;
		m->real_path = copy;
		if (m->search)
			free(m->search->refused);
		free(m->search);
		m->search = NULL;
		module_open(s, m);
		if (m->usable) {
			free(warning);
			free(real);
			break;
		}
		module_close_dwfl(m);
		free(m->warning);
		free(m->real_path);
		m->warning = warning;
		m->real_path = real;
	}
	free(hexid);
}

/* The module file cannot be used (gone, unreadable, rebuilt): take the
 * symbol table `record` saved for its build-id, if a trace directory holds
 * one, and say so in the module's one warning instead of the fallback. */
static void module_use_saved(struct symbols *s, struct module *m)
{
	static const char fallback[] = "; names shown as ";
	char err[512];

	if (!m->build_id_len || !m->warning)
		return;
	for (size_t i = 0; i < s->n_symtab_dirs; i++) {
		struct symtab *st = calloc(1, sizeof(*st));
		int r = st ? symtab_load(st, s->symtab_dirs[i], m->build_id, m->build_id_len, err, sizeof(err)) : 1;
		char *cut = strstr(m->warning, fallback), *w;

		if (r == 1) {
			free(st);
			continue;
		}
		if (r < 0) {
			free(st);
			w = str_printf("%s (the symbol table saved in the trace cannot be used: %s)", m->warning, err);
		} else {
			if (cut)
				*cut = 0;
			m->saved = st;
			w = str_printf("%s; names and lines come from the symbol table saved in the trace", m->warning);
		}
		if (w) {
			free(m->warning);
			m->warning = w;
		}
		return;
	}
}

/* Modules are found by (path, build-id) through a hash: a trace may name
 * hundreds of thousands of module files. */
static size_t module_key_hash(const struct symbols *s, const char *path, const uint8_t *build_id, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ s->hash_seed;
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		h = (h ^ *c) * 0x100000001b3ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ build_id[i]) * 0x100000001b3ull;
	return (size_t)fnt_mix64(h);
}

static int module_hash_grow(struct symbols *s)
{
	size_t nsize = s->module_hash_size ? 2 * s->module_hash_size : 256;
	size_t *nh = calloc(nsize, sizeof(*nh));
	if (!nh)
		return -1;
	for (size_t k = 0; k < s->n_modules; k++) {
		const struct module *m = &s->modules[k];
		size_t j = module_key_hash(s, m->path, m->build_id, m->build_id_len) & (nsize - 1);
		while (nh[j])
			j = (j + 1) & (nsize - 1);
		nh[j] = k + 1;
	}
	free(s->module_hash);
	s->module_hash = nh;
	s->module_hash_size = nsize;
	return 0;
}

int symbols_add_module(struct symbols *s, const char *path, const uint8_t *build_id, size_t build_id_len)
{
	struct module *m;
	const char *slash;
	size_t slot, mask;

	if (!s)
		return -1;
	if (!path)
		path = "";
	if (!build_id)
		build_id_len = 0;
	if (s->n_modules >= INT_MAX)
		return -1;
	if (2 * (s->n_modules + 1) > s->module_hash_size && module_hash_grow(s))
		return -1;
	mask = s->module_hash_size - 1;
	for (slot = module_key_hash(s, path, build_id, build_id_len) & mask; s->module_hash[slot];
	     slot = (slot + 1) & mask) {
		m = &s->modules[s->module_hash[slot] - 1];
		if (!strcmp(m->path, path) && m->build_id_len == build_id_len &&
		    (!build_id_len || !memcmp(m->build_id, build_id, build_id_len)))
			return (int)(s->module_hash[slot] - 1);
	}
	if (s->n_modules == s->cap_modules) {
		size_t ncap = s->cap_modules ? 2 * s->cap_modules : 16;
		struct module *nm = realloc(s->modules, ncap * sizeof(*nm));
		if (!nm)
			return -1;
		s->modules = nm;
		s->cap_modules = ncap;
	}
	m = &s->modules[s->n_modules];
	memset(m, 0, sizeof(*m));
	slash = strrchr(path, '/');
	m->path = strdup(path);
	m->real_path = apply_prefix_map(s, path);
	m->base = strdup(slash && slash[1] ? slash + 1 : path);
	if (build_id_len) {
		m->build_id = malloc(build_id_len);
		if (m->build_id)
			memcpy(m->build_id, build_id, build_id_len);
	}
	m->build_id_len = build_id_len;
	if (!m->path || !m->real_path || !m->base || (build_id_len && !m->build_id)) {
		module_release(m);
		return -1;
	}
	module_open(s, m);
	if (!m->usable)
		module_use_copy(s, m);
	if (!m->usable)
		module_use_saved(s, m);
	s->module_hash[slot] = s->n_modules + 1;
	return (int)s->n_modules++;
}

static struct module *module_get(struct symbols *s, int module)
{
	if (!s || module < 0 || (size_t)module >= s->n_modules)
		return NULL;
	return &s->modules[module];
}

const char *symbols_module_warning(struct symbols *s, int module)
{
	struct module *m = module_get(s, module);
	uint64_t cut;

	if (!m)
		return NULL;
	cut = m->cut;
	for (size_t i = 0; i < m->n_guarded; i++)
		cut += fnt_mapguard_cut(m->guarded[i]);
	if (cut && !m->warning) {
		free(m->cut_warning);
		m->cut_warning = str_printf("'%s' shrank while it was read: %" PRIu64 " bytes past the cut read as "
					    "empty; names and lines from it may be missing", m->real_path, cut);
		return m->cut_warning;
	}
	if (!m->warning && m->search && m->search->refused)
		return m->search->refused;
	return m->warning;
}

const char *symbols_module_path(struct symbols *s, int module)
{
	struct module *m = module_get(s, module);
	return m ? m->real_path : NULL;
}

/* ---- cache ---- */

static size_t key_hash(int module, uint64_t vaddr, enum entry_kind kind)
{
	uint64_t h = vaddr * 0x9E3779B97F4A7C15ull;
	h ^= ((uint64_t)(unsigned)module * 0xC2B2AE3D27D4EB4Full) ^ (uint64_t)kind;
	h *= 0x165667B19E3779F9ull;
	return (size_t)(h ^ (h >> 29));
}

static struct entry *cache_find(struct symbols *s, int module, uint64_t vaddr, enum entry_kind kind)
{
	size_t mask, i;

	if (!s->hash_size)
		return NULL;
	mask = s->hash_size - 1;
	for (i = key_hash(module, vaddr, kind) & mask; s->hash[i]; i = (i + 1) & mask) {
		struct entry *e = s->entries[s->hash[i] - 1];
		if (e->module == module && e->vaddr == vaddr && e->kind == kind)
			return e;
	}
	return NULL;
}

/* Takes e into the cache; -1 (e not taken) without memory. */
static int cache_add(struct symbols *s, struct entry *e)
{
	size_t mask, i;

	if (2 * (s->n_entries + 1) > s->hash_size) {
		size_t nsize = s->hash_size ? 2 * s->hash_size : 1024;
		size_t *nh = calloc(nsize, sizeof(*nh));
		if (!nh)
			return -1;
		for (size_t k = 0; k < s->n_entries; k++) {
			struct entry *o = s->entries[k];
			size_t j = key_hash(o->module, o->vaddr, o->kind) & (nsize - 1);
			while (nh[j])
				j = (j + 1) & (nsize - 1);
			nh[j] = k + 1;
		}
		free(s->hash);
		s->hash = nh;
		s->hash_size = nsize;
	}
	if (s->n_entries == s->cap_entries) {
		size_t ncap = s->cap_entries ? 2 * s->cap_entries : 256;
		struct entry **ne = realloc(s->entries, ncap * sizeof(*ne));
		if (!ne)
			return -1;
		s->entries = ne;
		s->cap_entries = ncap;
	}
	s->entries[s->n_entries] = e;
	mask = s->hash_size - 1;
	for (i = key_hash(e->module, e->vaddr, e->kind) & mask; s->hash[i]; i = (i + 1) & mask)
		;
	s->hash[i] = ++s->n_entries;
	return 0;
}

/* ---- DWARF ---- */

static int range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;
	return x->low < y->low ? -1 : x->low > y->low;
}

/* Every unit's address ranges, once per module, for the units libdwfl cannot
 * find through .debug_aranges. */
static void load_ranges(struct module *m)
{
	Dwarf *dw;
	Dwarf_CU *unit = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t unit_type;
	size_t cap = 0;

	m->ranges_done = 1;
	dw = dwfl_module_getdwarf(m->mod, &m->ranges_bias);
	if (!dw)
		return;
	while (dwarf_get_units(dw, unit, &unit, &version, &unit_type, &cudie, &subdie) == 0) {
		Dwarf_Addr base, low, high;
		ptrdiff_t off = 0;

		if (unit_type != DW_UT_compile && unit_type != DW_UT_skeleton && unit_type != DW_UT_partial)
			continue;
		while ((off = dwarf_ranges(&cudie, off, &base, &low, &high)) > 0) {
			if (high <= low)
				continue;
			if (m->n_ranges == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				struct cu_range *nr = realloc(m->ranges, ncap * sizeof(*nr));
				if (!nr)
					goto done;
				m->ranges = nr;
				cap = ncap;
			}
			m->ranges[m->n_ranges].low = low;
			m->ranges[m->n_ranges].high = high;
			m->ranges[m->n_ranges].cu = cudie;
			m->n_ranges++;
		}
	}
done:
	if (m->n_ranges)
		qsort(m->ranges, m->n_ranges, sizeof(*m->ranges), range_cmp);
}

/* Before the first lookup in a usable module: its debug file is found (and
 * its dwz file), each mapping guarded, and whether its DWARF may be used
 * checked (libdw would open nothing but regular files for it, safe-debug.h). */
static void module_load(struct module *m)
{
	Dwarf_Addr bias;
	Dwarf *dw;
	const char *alt_name;
	const void *alt_id;

	if (m->loaded || !m->mod)
		return;
	m->loaded = 1;
	dw = dwfl_module_getdwarf(m->mod, &bias);       /* finds the debug file */
	if (dw)
		module_guard(m, dwarf_getelf(dw));
	if (safe_dwarf_check(m->search, m->mod, m->base) || !dw)
		return;
	if (dwelf_dwarf_gnu_debugaltlink(dw, &alt_name, &alt_id) > 0) {
		Dwarf *alt = dwarf_getalt(dw);
		module_guard(m, alt ? dwarf_getelf(alt) : NULL);
	}
}

/* Before the first symbol lookup in a usable module: its symbol table
 * found (in its debug file when it has none of its own) and the mapping of
 * the file it comes from guarded, without its DWARF.  Loading the DWARF
 * (module_load, before its first use) decompresses a debug file's
 * sections: tens of milliseconds for libc6-dbg's libc, which a module
 * that is only named must not pay. */
static void module_symbols(struct module *m)
{
	GElf_Sym sym;
	GElf_Addr addr;
	Elf *elf = NULL;

	if (m->syms_loaded || !m->mod)
		return;
	m->syms_loaded = 1;
	if (dwfl_module_getsymtab(m->mod) > 1 && dwfl_module_getsym_info(m->mod, 1, &sym, &addr, NULL, &elf, NULL))
		module_guard(m, elf);
}

static int dwarf_usable(struct module *m)
{
	module_load(m);
	return !m->search || !m->search->dwarf_refused;
}

int symbols_module_has_dwarf(struct symbols *s, int module)
{
	struct module *m = module_get(s, module);
	Dwarf_Addr bias;

	if (!m || !m->usable || !m->mod || !dwarf_usable(m))
		return 0;
	return dwfl_module_getdwarf(m->mod, &bias) != NULL;
}

/* The compile unit covering vaddr.  *bias: to subtract from vaddr. */
static int cu_for(struct module *m, uint64_t vaddr, Dwarf_Die *cu, Dwarf_Addr *bias)
{
	Dwarf_Die *d;
	size_t lo = 0, hi;
	Dwarf_Addr a;

	if (!dwarf_usable(m))
		return -1;
	d = dwfl_module_addrdie(m->mod, vaddr, bias);
	if (d) {
		*cu = *d;
		return 0;
	}
	if (!m->ranges_done)
		load_ranges(m);
	*bias = m->ranges_bias;
	a = vaddr - m->ranges_bias;
	hi = m->n_ranges;
	while (lo < hi) {               /* the last range starting at or before a */
		size_t mid = lo + (hi - lo) / 2;
		if (m->ranges[mid].low <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges of different units may nest (rarely): look back a little */
	for (size_t i = lo, k = 0; i > 0 && k < 16; i--, k++) {
		if (m->ranges[i - 1].low <= a && a < m->ranges[i - 1].high) {
			*cu = m->ranges[i - 1].cu;
			return 0;
		}
	}
	return -1;
}

/* The line table's answer for vaddr: the line of that instruction. */
static void line_of(struct module *m, uint64_t vaddr, const char **file, int *line)
{
	Dwfl_Line *l;
	Dwarf_Die cu;
	Dwarf_Addr bias;
	Dwarf_Line *dl;
	const char *f;
	int ln = 0;

	*file = NULL;
	*line = 0;
	if (!dwarf_usable(m))
		return;
	l = dwfl_module_getsrc(m->mod, vaddr);
	if (l) {
		f = dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL);
		if (f && ln > 0) {
			*file = f;
			*line = ln;
		}
		return;
	}
	if (cu_for(m, vaddr, &cu, &bias))
		return;
	dl = dwarf_getsrc_die(&cu, vaddr - bias);
	if (dl && (f = dwarf_linesrc(dl, NULL, NULL)) && !dwarf_lineno(dl, &ln) && ln > 0) {
		*file = f;
		*line = ln;
	}
}

/* The DW_AT_decl_file name.  dwarf_decl_file() of elfutils 0.188 refuses
 * index 0, which DWARF 5 uses for the primary source file (clang does). */
static const char *decl_file(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word idx;
	Dwarf_Die cu;
	size_t nfiles;
	const char *f = dwarf_decl_file(die);

	if (f)
		return f;
	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &attr) || dwarf_formudata(&attr, &idx) ||
	    !dwarf_diecu(die, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles) || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* The subprogram DIE whose code covers pc, under die.  dwarf_getscopes()
 * does not look inside namespaces and classes, where clang puts C++
 * function definitions. */
static int find_subprogram(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(die, &child) != 0)
		return -1;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			if (dwarf_haspc(&child, pc) > 0) {
				*out = child;
				return 0;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_module:
			if (!find_subprogram(&child, pc, out, depth + 1))
				return 0;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return -1;
}

/* A function's own line: where its name is written (the subprogram's
 * DW_AT_decl_line), the same whatever the compiler and optimisation level;
 * without it, the line of the function's first instruction. */
static void func_line(struct module *m, uint64_t vaddr, const char **file, int *line)
{
	Dwarf_Die cu, sub;
	Dwarf_Addr bias;
	const char *f;
	int ln = 0;

	if (!cu_for(m, vaddr, &cu, &bias) && !find_subprogram(&cu, vaddr - bias, &sub, 0) &&
	    (f = decl_file(&sub)) && !dwarf_decl_line(&sub, &ln) && ln > 0) {
		*file = f;
		*line = ln;
		return;
	}
	line_of(m, vaddr, file, line);
}

/* ---- lookups ---- */

static struct entry *entry_new(int module, uint64_t vaddr, enum entry_kind kind)
{
	struct entry *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->module = module;
	e->vaddr = vaddr;
	e->kind = kind;
	e->ret = -1;
	e->start = vaddr;
	return e;
}

/* A library call's events carry the address of the calling module's GOT
 * slot (runtime/libcall.c): such an address is named by the symbol of its
 * JUMP_SLOT or GLOB_DAT relocation in the file's .dynsym, as the user wrote
 * it ("qsort", not "qsort@plt"); NULL when vaddr is not a GOT slot. */
/* Each JUMP_SLOT / GLOB_DAT relocation of the file: fn(arg, slot, name)
 * until it returns non-zero, which is returned (0 when none did). */
static int each_slot(struct module *m, int (*fn)(void *, uint64_t, const char *), void *arg)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh, dsh;
		Elf_Data *data, *syms;
		Elf_Scn *dyn;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		dyn = elf_getscn(elf, sh.sh_link);
		if (!dyn || !gelf_getshdr(dyn, &dsh) || dsh.sh_type != SHT_DYNSYM)
			continue;
		data = elf_getdata(scn, NULL);
		syms = elf_getdata(dyn, NULL);
		for (size_t k = 0; data && syms && k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Rela rela;
			GElf_Sym sym;
			const char *name;
			unsigned type;
			int r;
			if (!gelf_getrela(data, (int)k, &rela))
				continue;
			type = GELF_R_TYPE(rela.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(rela.r_info), &sym) ||
			    !(name = elf_strptr(elf, dsh.sh_link, sym.st_name)))
				continue;
			if ((r = fn(arg, rela.r_offset, name)))
				return r;
		}
	}
	return 0;
}

struct slot_query {
	uint64_t vaddr;
	const char *name;
};

static int slot_match(void *arg, uint64_t slot, const char *name)
{
	struct slot_query *q = arg;
	if (slot != q->vaddr)
		return 0;
	q->name = name;
	return 1;
}

static const char *got_slot_name(struct module *m, uint64_t vaddr)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	Elf_Scn *scn = NULL;
	struct slot_query q = { vaddr, NULL };
	size_t shstrndx;
	int on_got = 0;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	/* most addresses are functions: only a .got or .got.plt address is looked up */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *sn;
		if (gelf_getshdr(scn, &sh) && vaddr >= sh.sh_addr && vaddr - sh.sh_addr < sh.sh_size &&
		    (sn = elf_strptr(elf, shstrndx, sh.sh_name)) && !strncmp(sn, ".got", 4))
			on_got = 1;
	}
	if (!on_got)
		return NULL;
	each_slot(m, slot_match, &q);
	return q.name;
}

/* e's names from a symbol name as the file spells it (mangled) */
static int set_names(struct symbols *s, struct entry *e, const char *name)
{
	static const enum cxxname_style styles[] = {
		[SYMBOLS_DEMANGLE_SHORT] = CXXNAME_SHORT,
		[SYMBOLS_DEMANGLE_FULL] = CXXNAME_FULL,
		[SYMBOLS_DEMANGLE_SIMPLE] = CXXNAME_SIMPLE,
	};
	char *dem = NULL;

	if (s->demangle != SYMBOLS_DEMANGLE_NO)
		dem = cxxname_demangle(name, CXXNAME_FULL);
	if (dem) {
		e->name = dem;
		e->short_name = s->demangle == SYMBOLS_DEMANGLE_FULL ? NULL :
				cxxname_demangle(name, styles[s->demangle]);
		if (!e->short_name || !*e->short_name || !strcmp(e->short_name, e->name)) {
			free(e->short_name);
			e->short_name = e->name;
		}
		e->structor = cxxname_structor(name);
		e->sig_name = cxxname_demangle(name, CXXNAME_SIG);
		if (!e->sig_name || !*e->sig_name || !strcmp(e->sig_name, e->name)) {
			free(e->sig_name);
			e->sig_name = e->name;
		}
		e->mangled = strdup(name);
	} else {
		e->name = strdup(name);
		e->short_name = e->sig_name = e->name;
		if (!e->name)
			return -1;
		if (name[0] == '_' && name[1] == 'Z')   /* --demangle no */
			e->mangled = e->name;
	}
	return 0;
}

static int func_symbol(struct symbols *s, struct module *m, struct entry *e)
{
	GElf_Off off = 0;
	GElf_Sym sym = { 0 };     /* (a GOT slot's name comes without one: size 0) */
	const char *name = got_slot_name(m, e->vaddr);

	if (!name || !*name)
		name = dwfl_module_addrinfo(m->mod, e->vaddr, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name || set_names(s, e, name))
		return -1;
	e->start = e->vaddr - off;
	e->size = sym.st_size;
	return 0;
}

/* the same from the saved table */
static int saved_symbol(struct symbols *s, struct module *m, struct entry *e)
{
	uint64_t start = e->vaddr, size = 0;
	const char *name = symtab_slot_at(m->saved, e->vaddr);

	if (!name || !*name)
		name = symtab_func_at(m->saved, e->vaddr, &start, &size);
	if (!name || !*name || set_names(s, e, name))
		return -1;
	e->start = start;
	e->size = size;
	return 0;
}

static void fill_out(const struct entry *e, int with_line, struct sym_func *out)
{
	out->name = e->name;
	out->short_name = e->short_name;
	out->sig_name = e->sig_name ? e->sig_name : e->name;
	out->mangled = e->mangled;
	out->structor = e->structor;
	out->start = e->start;
	out->size = e->ret ? 0 : e->size;
	out->file = with_line || e->has_line ? e->file : NULL;
	out->line = with_line || e->has_line ? e->line : 0;
}

int symbols_func(struct symbols *s, int module, uint64_t vaddr, int with_line, struct sym_func *out)
{
	static const char oom_name[] = "?";
	struct module *m;
	struct entry *e;

	memset(out, 0, sizeof(*out));
	out->name = out->short_name = out->sig_name = oom_name;
	out->start = vaddr;
	if (!s)
		return -1;
	m = module_get(s, module);
	e = cache_find(s, module, vaddr, ENTRY_FUNC);
	if (!e) {
		e = entry_new(module, vaddr, ENTRY_FUNC);
		if (!e)
			return -1;
		if (m && m->usable)
			module_symbols(m);
		if (m && m->usable && !func_symbol(s, m, e))
			e->ret = 0;
		else if (m && m->saved && !saved_symbol(s, m, e))
			e->ret = 0;
		if (e->ret) {
			if (e->short_name != e->name)
				free(e->short_name);
			if (e->sig_name != e->name)
				free(e->sig_name);
			if (e->mangled != e->name)
				free(e->mangled);
			e->mangled = NULL;
			free(e->name);
			e->name = str_printf("%s+0x%" PRIx64, m ? m->base : "??", vaddr);
			e->short_name = e->sig_name = e->name;
			e->start = vaddr;
		}
		if (!e->name || cache_add(s, e)) {
			entry_free(e);
			return -1;
		}
	}
	if (with_line && !e->has_line) {
		const char *file = NULL;
		int line = 0;

		if (m && m->usable && !e->ret)
			func_line(m, e->start, &file, &line);
		else if (m && m->saved && !e->ret)
			symtab_line_at(m->saved, e->start, 1, &file, &line);
		e->file = file ? strdup(file) : NULL;
		e->line = e->file ? line : 0;
		e->has_line = 1;
	}
	fill_out(e, with_line, out);
	return e->ret;
}

/* the inlined subroutines on the way down to pc, under die (a subprogram,
 * or a lexical block or inlined subroutine inside it), outermost first */
static size_t inline_path(Dwarf_Die *die, Dwarf_Addr pc, const char **names, size_t n, size_t max, int depth)
{
	Dwarf_Die child;
	if (depth > 64 || dwarf_child(die, &child) != 0)
		return n;
	do {
		int tag = dwarf_tag(&child);
		if ((tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block) || dwarf_haspc(&child, pc) <= 0)
			continue;
		if (tag == DW_TAG_inlined_subroutine && n < max) {
			Dwarf_Attribute a;
			const char *name = NULL;
			if (dwarf_attr_integrate(&child, DW_AT_linkage_name, &a) ||
			    dwarf_attr_integrate(&child, DW_AT_MIPS_linkage_name, &a) ||
			    dwarf_attr_integrate(&child, DW_AT_name, &a))
				name = dwarf_formstring(&a);
			names[n++] = name ? name : "";
		}
		return inline_path(&child, pc, names, n, max, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* The first instructions at or after pc, within sub, that the line table
 * gives a line (up to max, the first of each row): a landing pad starts
 * with instructions of line 0 (moving the exception's registers), which
 * lie outside the ranges of the inlined function whose catch or cleanup
 * it is.  0 found: pc alone. */
static size_t first_lined(Dwarf_Die *cu, Dwarf_Die *sub, Dwarf_Addr pc, Dwarf_Addr *out, size_t max)
{
	Dwarf_Lines *lines;
	size_t n, lo = 0, hi, found = 0;
	out[0] = pc;
	if (dwarf_getsrclines(cu, &lines, &n) || !n)
		return 0;
	hi = n;
	while (lo < hi) {               /* the first row past pc */
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr a = 0;
		dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a);
		if (a <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the row that covers pc, then the rows after it, a few */
	for (size_t i = lo ? lo - 1 : 0, k = 0; i < n && k < 32; i++, k++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a = 0;
		int line = 0;
		bool end = false;
		if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &line) || dwarf_lineendsequence(l, &end) || end)
			break;
		if (a > pc && dwarf_haspc(sub, a) <= 0)
			break;
		if (line > 0 && (!found || a > out[found - 1])) {
			out[found++] = a > pc ? a : pc;
			if (found == max)
				break;
		}
	}
	return found;
}

int symbols_built_by_gcc(struct symbols *s, int module, uint64_t vaddr)
{
	struct module *m = s ? module_get(s, module) : NULL;
	Dwarf_Die cu;
	Dwarf_Addr bias;
	Dwarf_Attribute a;
	const char *producer;
	if (!m || !m->usable || !m->mod || cu_for(m, vaddr, &cu, &bias) ||
	    !dwarf_attr(&cu, DW_AT_producer, &a) || !(producer = dwarf_formstring(&a)))
		return 0;
	return !strncmp(producer, "GNU ", 4);
}

size_t symbols_inline_names(struct symbols *s, int module, uint64_t vaddr, const char **names, size_t max)
{
	struct module *m = s ? module_get(s, module) : NULL;
	Dwarf_Die cu, sub;
	Dwarf_Addr bias;
	if (!m || !m->usable || !m->mod || cu_for(m, vaddr, &cu, &bias) ||
	    find_subprogram(&cu, vaddr - bias, &sub, 0))
		return 0;
	/* the pad's first two rows with a line: its cleanups run first (a
	 * destructor of an inlined function's object), then the dispatch to
	 * the catch, in the function that catches; the shorter chain of the
	 * two is the catching one (a cleanup-only pad has only its own) */
	Dwarf_Addr at[2];
	size_t k = first_lined(&cu, &sub, vaddr - bias, at, 2), best = SIZE_MAX;
	const char *tmp[16];
	for (size_t i = 0; i < (k ? k : 1); i++) {
		size_t c = inline_path(&sub, at[i], tmp, 0, max < 16 ? max : 16, 0);
		if (c < best) {
			best = c;
			memcpy(names, tmp, c * sizeof(*names));
		}
	}
	return best;
}

int symbols_srcline(struct symbols *s, int module, uint64_t vaddr, const char **file, int *line)
{
	struct module *m;
	struct entry *e;

	*file = NULL;
	*line = 0;
	if (!s)
		return -1;
	m = module_get(s, module);
	e = cache_find(s, module, vaddr, ENTRY_SRCLINE);
	if (!e) {
		const char *f = NULL;
		int l = 0;

		e = entry_new(module, vaddr, ENTRY_SRCLINE);
		if (!e)
			return -1;
		if (m && m->usable)
			line_of(m, vaddr, &f, &l);
		else if (m && m->saved)
			symtab_line_at(m->saved, vaddr, 0, &f, &l);
		if (f) {
			e->file = strdup(f);
			e->line = l;
			e->ret = e->file ? 0 : -1;
		}
		if (cache_add(s, e)) {
			entry_free(e);
			return -1;
		}
	}
	*file = e->file;
	*line = e->line;
	return e->ret;
}

/* ---- saving (record, archive) ---- */

/* every JUMP_SLOT / GLOB_DAT relocation's slot and symbol name into out */
static int add_slot(void *out, uint64_t slot, const char *name)
{
	return *name && symtab_add_slot(out, slot, name) ? -1 : 0;
}

static int all_slots(struct module *m, struct symtab *out)
{
	return each_slot(m, add_slot, out);
}

const char *symbols_module_files(struct symbols *s, int module, const char **debug_file)
{
	struct module *m = module_get(s, module);
	const char *main_file = NULL, *dbg = NULL;
	Dwarf_Addr bias;

	*debug_file = NULL;
	if (!m || !m->usable || !m->mod)
		return NULL;
	module_load(m);
	dwfl_module_getdwarf(m->mod, &bias);     /* runs the debug-file search */
	dwfl_module_info(m->mod, NULL, NULL, NULL, NULL, NULL, &main_file, &dbg);
	if (dbg && (!main_file || strcmp(dbg, main_file)))
		*debug_file = dbg;
	return main_file ? main_file : m->real_path;
}

int symbols_save_table(struct symbols *s, int module, const uint64_t *funcs, size_t n_funcs,
		       const uint64_t *addrs, size_t n_addrs, const struct symtab *old, struct symtab *out)
{
	struct module *m = module_get(s, module);
	int n, r = -1;
	int64_t path;

	if (!m || !m->usable || !m->mod || !m->build_id_len)
		return -1;
	module_symbols(m);
	symtab_init(out, m->build_id, m->build_id_len);
	path = symtab_string(out, m->path);
	if (path < 0)
		goto out;
	out->path = (uint32_t)path;
	/* Of several symbols at one address the table keeps the first added
	 * (symtab_encode): the functions that appear first, named as a lookup
	 * names them now (dwfl_module_addrinfo, too slow to ask for each of
	 * libc's 7,000 symbols), then every function symbol, global ones
	 * before weak ones before local ones, as libdwfl prefers them. */
	for (size_t i = 0; funcs && i < n_funcs; i++) {
		GElf_Sym sym;
		GElf_Off off = 0;
		const char *name = dwfl_module_addrinfo(m->mod, funcs[i], &off, &sym, NULL, NULL, NULL);

		if (name && *name && (GELF_ST_TYPE(sym.st_info) == STT_FUNC || GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC) &&
		    symtab_add_func(out, funcs[i] - off, sym.st_size, name))
			goto out;
	}
	n = dwfl_module_getsymtab(m->mod);
	for (int pass = 0; pass < 3; pass++)
		for (int i = 1; i < n; i++) {
			static const int binds[] = { STB_GLOBAL, STB_WEAK, STB_LOCAL };
			GElf_Sym sym;
			GElf_Addr addr;
			const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, NULL, NULL, NULL);
			int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);

			if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF || !addr)
				continue;
			if (bind == binds[pass] || (pass == 2 && bind != STB_GLOBAL && bind != STB_WEAK))
				if (symtab_add_func(out, addr, sym.st_size, name))
					goto out;
		}
	if (!funcs && all_slots(m, out))       /* not known which appear: all of them */
		goto out;
	for (size_t i = 0; funcs && i < n_funcs; i++) {
		const char *slot = got_slot_name(m, funcs[i]);
		struct sym_func sf;

		if (slot && *slot && symtab_add_slot(out, funcs[i], slot))
			goto out;
		if (!symbols_func(s, module, funcs[i], 1, &sf) &&
		    symtab_add_line(out, sf.start, 1, sf.file, sf.file ? sf.line : 0))
			goto out;
	}
	for (size_t i = 0; i < n_addrs; i++) {
		const char *file = NULL;
		int line = 0;

		symbols_srcline(s, module, addrs[i], &file, &line);
		if (symtab_add_line(out, addrs[i], 0, file, file ? line : 0))
			goto out;
	}
	/* what an earlier save (a snapshot's) knew, for the places not seen now */
	for (size_t i = 0; old && i < old->n_lines; i++) {
		const struct symtab_line *l = &old->lines[i];
		if (symtab_add_line(out, l->vaddr, !!(l->line & SYMTAB_LINE_FUNC), old->strings + l->file,
				    (int)(l->line & ~SYMTAB_LINE_FUNC)))
			goto out;
	}
	r = 0;
out:
	if (r)
		symtab_release(out);
	return r;
}
