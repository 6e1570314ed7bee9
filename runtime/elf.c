/*
 * elf.c - the runtime's one reader of ELF files on disk: the symbol tables
 * and section names that record-time filters (filter.c), argument specs
 * (argspec.c) and patchable entries (patch.c) need when a module is loaded.
 * The parts it uses are read into a copy (fnt_elf_open) and every offset
 * is checked against the file's size, so a damaged or odd file yields
 * nothing, never a crash.  (libelf would do this, but the runtime loads
 * into every traced process and stays small.)
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "runtime/runtime.h"

/* bytes [off, off + len) of the file into the same place of the copy;
 * 0, or -1 (out of the file, a read error, or a short file) */
static int read_part(int fd, uint8_t *copy, size_t size, uint64_t off, uint64_t len)
{
	if (off > size || len > size - off)
		return -1;
	while (len) {
		ssize_t r = pread(fd, copy + off, len, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		off += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

/* The file is read, not mapped: a file mapping is an mmap event to a
 * profiler beside us (perf record --call-graph dwarf), which then takes the
 * lowest address any mapping of libc.so.6 ever had for libc's load address,
 * and unwinds nothing through it.  Only the parts this reader uses are read
 * (headers and the symbol, string, relocation and version tables), into an
 * anonymous copy the size of the file whose other pages are never touched:
 * the file offsets stay valid and a 1 GB debug build costs what it uses. */
int fnt_elf_open(struct fnt_elf *e, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);   /* never blocks (a FIFO) */
	uint8_t *m;
	size_t size;

	memset(e, 0, sizeof(*e));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -1;
	}
	size = (size_t)st.st_size;
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return -1;
	}
	e->map = m;
	e->size = size;
	e->eh = (const void *)m;
	if (read_part(fd, m, size, 0, sizeof(Elf64_Ehdr)) || memcmp(e->eh->e_ident, ELFMAG, SELFMAG) ||
	    e->eh->e_ident[EI_CLASS] != ELFCLASS64 || e->eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    read_part(fd, m, size, e->eh->e_shoff, (uint64_t)e->eh->e_shnum * sizeof(Elf64_Shdr)))
		goto fail;
	if (e->eh->e_phentsize == sizeof(Elf64_Phdr))
		read_part(fd, m, size, e->eh->e_phoff, (uint64_t)e->eh->e_phnum * sizeof(Elf64_Phdr));
	e->sh = (const void *)(m + e->eh->e_shoff);
	for (unsigned i = 0; i < e->eh->e_shnum; i++)
		switch (e->sh[i].sh_type) {
		case SHT_SYMTAB: case SHT_DYNSYM: case SHT_STRTAB: case SHT_RELA: case SHT_REL:
		case SHT_DYNAMIC: case SHT_GNU_versym: case SHT_GNU_verneed: case SHT_GNU_verdef:
			read_part(fd, m, size, e->sh[i].sh_offset, e->sh[i].sh_size);   /* (else it reads as zeros) */
		}
	close(fd);
	return 0;
fail:
	close(fd);
	fnt_elf_close(e);
	return -1;
}

void fnt_elf_close(struct fnt_elf *e)
{
	if (e->map)
		munmap((void *)e->map, e->size);
	memset(e, 0, sizeof(*e));
}

static int in_file(const struct fnt_elf *e, const Elf64_Shdr *s)
{
	return s->sh_offset <= e->size && s->sh_size <= e->size - s->sh_offset;
}

const Elf64_Shdr *fnt_elf_section(const struct fnt_elf *e, const char *name, const Elf64_Shdr *after)
{
	size_t len = strlen(name) + 1;
	if (e->eh->e_shstrndx >= e->eh->e_shnum)
		return NULL;
	const Elf64_Shdr *names = &e->sh[e->eh->e_shstrndx];
	if (!in_file(e, names))
		return NULL;
	for (unsigned i = after ? (unsigned)(after - e->sh) + 1 : 0; i < e->eh->e_shnum; i++)
		if (e->sh[i].sh_name < names->sh_size && names->sh_size - e->sh[i].sh_name >= len &&
		    !memcmp(e->map + names->sh_offset + e->sh[i].sh_name, name, len))
			return &e->sh[i];
	return NULL;
}

/* .symtab, else .dynsym, with its string table; 0 when there is none */
static int symbols(const struct fnt_elf *e, const Elf64_Sym **sym, size_t *n, const char **str, size_t *strsize)
{
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < e->eh->e_shnum; i++) {
			const Elf64_Shdr *t = &e->sh[i];
			if (t->sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB))
				continue;
			if (t->sh_link >= e->eh->e_shnum || !in_file(e, t) || !in_file(e, &e->sh[t->sh_link]))
				return 0;
			*sym = (const void *)(e->map + t->sh_offset);
			*n = t->sh_size / sizeof(Elf64_Sym);
			*str = (const char *)e->map + e->sh[t->sh_link].sh_offset;
			*strsize = e->sh[t->sh_link].sh_size;
			return 1;
		}
	return 0;
}


void fnt_elf_symbols(const struct fnt_elf *e, unsigned type,
		     void (*fn)(void *ctx, const Elf64_Sym *sym, const char *name), void *ctx)
{
	const Elf64_Sym *sym;
	const char *str;
	size_t n, strsize;
	if (!symbols(e, &sym, &n, &str, &strsize))
		return;
	for (size_t k = 0; k < n; k++) {
		const Elf64_Sym *s = &sym[k];
		if (ELF64_ST_TYPE(s->st_info) != type || s->st_shndx == SHN_UNDEF || !s->st_value ||
		    s->st_name >= strsize || !memchr(str + s->st_name, 0, strsize - s->st_name))
			continue;
		fn(ctx, s, str + s->st_name);
	}
}

struct function_cb {
	void (*fn)(void *ctx, const char *name, uint64_t vaddr);
	void *ctx;
};

static void function_of(void *ctx, const Elf64_Sym *s, const char *name)
{
	const struct function_cb *cb = ctx;
	cb->fn(cb->ctx, name, s->st_value);
}

void fnt_elf_functions(const struct fnt_elf *e, void (*fn)(void *ctx, const char *name, uint64_t vaddr), void *ctx)
{
	struct function_cb cb = { fn, ctx };
	fnt_elf_symbols(e, STT_FUNC, function_of, &cb);
}

int fnt_elf_load_range(const struct fnt_elf *e, uint64_t *lo, uint64_t *hi)
{
	const Elf64_Ehdr *h = e->eh;
	int found = 0;
	*lo = UINT64_MAX;
	*hi = 0;
	if (h->e_phentsize != sizeof(Elf64_Phdr) || h->e_phoff > e->size ||
	    (e->size - h->e_phoff) / sizeof(Elf64_Phdr) < h->e_phnum)
		return -1;
	const Elf64_Phdr *ph = (const void *)(e->map + h->e_phoff);
	for (unsigned i = 0; i < h->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		found = 1;
		if (ph[i].p_vaddr < *lo)
			*lo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > *hi)
			*hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	return found ? 0 : -1;
}

/* A caller of a hook refers to it (undefined, maybe "name@GLIBC_2.2.5" in
 * .symtab); a program linked with libfntrace.a defines it; libc defines
 * dummy ones and is not instrumented. */
unsigned fnt_elf_hooks(const struct fnt_elf *e, const char *path)
{
	static const struct { const char *name; size_t len; unsigned bit; } hooks[] = {
		{ "__cyg_profile_func_enter", 24, FNT_ELF_CYG },
		{ "__fentry__", 10, FNT_ELF_FENTRY },
	};
	const char *base = strrchr(path, '/');
	int is_libc = base && !strncmp(base + 1, "libc.so", 7);
	const Elf64_Sym *sym;
	const char *str;
	size_t n, strsize;
	unsigned found = 0;

	if (symbols(e, &sym, &n, &str, &strsize))
		for (size_t k = 0; k < n; k++) {
			if (sym[k].st_name >= strsize || (sym[k].st_shndx != SHN_UNDEF && is_libc))
				continue;
			const char *nm = str + sym[k].st_name;
			size_t room = strsize - sym[k].st_name;
			for (unsigned h = 0; h < sizeof(hooks) / sizeof(hooks[0]); h++)
				if (room > hooks[h].len && !memcmp(nm, hooks[h].name, hooks[h].len) &&
				    (nm[hooks[h].len] == 0 || nm[hooks[h].len] == '@'))
					found |= hooks[h].bit;
		}
	if (fnt_elf_section(e, "__patchable_function_entries", NULL))
		found |= FNT_ELF_PATCHABLE;
	return found;
}

/* The .dynsym name of relocation k of RELA section r, or NULL */
static const char *rela_name(const struct fnt_elf *e, const Elf64_Shdr *r, size_t k, const Elf64_Sym **symp)
{
	if (r->sh_link >= e->eh->e_shnum)
		return NULL;
	const Elf64_Shdr *ds = &e->sh[r->sh_link];
	if (ds->sh_type != SHT_DYNSYM || !in_file(e, ds) || ds->sh_link >= e->eh->e_shnum ||
	    !in_file(e, &e->sh[ds->sh_link]))
		return NULL;
	const Elf64_Rela *rel = (const Elf64_Rela *)(const void *)(e->map + r->sh_offset) + k;
	const char *str = (const char *)e->map + e->sh[ds->sh_link].sh_offset;
	size_t si = ELF64_R_SYM(rel->r_info), strsize = e->sh[ds->sh_link].sh_size;
	if (!si || si >= ds->sh_size / sizeof(Elf64_Sym))
		return NULL;
	const Elf64_Sym *s = (const Elf64_Sym *)(const void *)(e->map + ds->sh_offset) + si;
	if (s->st_name >= strsize || !memchr(str + s->st_name, 0, strsize - s->st_name) || !str[s->st_name])
		return NULL;
	*symp = s;
	return str + s->st_name;
}

/* The GOT slots through which the object calls functions of other objects:
 * a JUMP_SLOT relocation (a PLT call) or a GLOB_DAT one of a function symbol
 * (-fno-plt's `call *f@GOTPCREL(%rip)`), of an undefined .dynsym symbol
 * (defined too when `defined`: a library's calls to its own interposable
 * functions, such as libc's malloc).  fn gets the symbol's name and the
 * slot's file vaddr (library calls, runtime/libcall.c; the filters and
 * argument specs name them the same).
 *
 * In a module that makes PLT calls, a GLOB_DAT slot only serves to take the
 * function's address (`p = free`): pointing it at a stub would make that
 * pointer differ from the one other modules take, so those are left out.
 * The compiler's own calls of the hooks go through the PLT even in -fno-plt
 * builds (clang): they do not count as PLT calls.  (`defined`, for
 * --nest-libcall, takes every GLOB_DAT function slot: libc calls malloc
 * through one.) */
void fnt_elf_imports(const struct fnt_elf *e, int defined, void (*fn)(void *ctx, const char *name, uint64_t vaddr),
		     void *ctx)
{
	int has_plt = 0;
	for (int pass = defined ? 1 : 0; pass < 2; pass++)
		for (unsigned i = 0; i < e->eh->e_shnum; i++) {
			const Elf64_Shdr *r = &e->sh[i];
			if (r->sh_type != SHT_RELA || r->sh_entsize != sizeof(Elf64_Rela) || !in_file(e, r))
				continue;
			const Elf64_Rela *rel = (const void *)(e->map + r->sh_offset);
			for (size_t k = 0; k < r->sh_size / sizeof(Elf64_Rela); k++) {
				unsigned type = ELF64_R_TYPE(rel[k].r_info);
				const Elf64_Sym *s = NULL;
				const char *name;
				if (type != R_X86_64_JUMP_SLOT && (type != R_X86_64_GLOB_DAT || has_plt))
					continue;
				if (!(name = rela_name(e, r, k, &s)))
					continue;
				if (!pass) {
					if (type == R_X86_64_JUMP_SLOT && strncmp(name, "__cyg_profile_func_", 19) &&
					    strncmp(name, "__fentry__", 10) && strncmp(name, "mcount", 6))
						has_plt = 1;
					continue;
				}
				unsigned st = ELF64_ST_TYPE(s->st_info);
				if (s->st_shndx != SHN_UNDEF && !defined)
					continue;
				if (st != STT_FUNC && !(type == R_X86_64_JUMP_SLOT && st == STT_NOTYPE))
					continue;
				fn(ctx, name, rel[k].r_offset);
			}
		}
}

/* The version an undefined .dynsym symbol is bound to ("GLIBC_2.2.5"), from
 * .gnu.version and .gnu.version_r; NULL when it has none (or on damage). */
const char *fnt_elf_import_version(const struct fnt_elf *e, const char *name)
{
	const Elf64_Shdr *ds = NULL, *vs = NULL, *vr = NULL;
	for (unsigned i = 0; i < e->eh->e_shnum; i++) {
		const Elf64_Shdr *s = &e->sh[i];
		if (!in_file(e, s))
			continue;
		if (s->sh_type == SHT_DYNSYM)
			ds = s;
		else if (s->sh_type == SHT_GNU_versym)
			vs = s;
		else if (s->sh_type == SHT_GNU_verneed)
			vr = s;
	}
	if (!ds || !vs || !vr || ds->sh_link >= e->eh->e_shnum || !in_file(e, &e->sh[ds->sh_link]) ||
	    vr->sh_link >= e->eh->e_shnum || !in_file(e, &e->sh[vr->sh_link]))
		return NULL;
	const Elf64_Sym *sym = (const void *)(e->map + ds->sh_offset);
	const Elf64_Half *ver = (const void *)(e->map + vs->sh_offset);
	const char *str = (const char *)e->map + e->sh[ds->sh_link].sh_offset;
	const char *vstr = (const char *)e->map + e->sh[vr->sh_link].sh_offset;
	size_t n = ds->sh_size / sizeof(Elf64_Sym), strsize = e->sh[ds->sh_link].sh_size;
	size_t vstrsize = e->sh[vr->sh_link].sh_size;
	unsigned want = 0;
	if (vs->sh_size / sizeof(Elf64_Half) < n)
		n = vs->sh_size / sizeof(Elf64_Half);
	for (size_t k = 1; k < n && !want; k++)
		if (sym[k].st_shndx == SHN_UNDEF && sym[k].st_name < strsize &&
		    !strncmp(str + sym[k].st_name, name, strsize - sym[k].st_name))
			want = ver[k] & 0x7fff;
	if (want < 2)
		return NULL;
	/* walk the Verneed entries and their Vernaux lists, every offset checked */
	size_t off = 0;
	for (unsigned i = 0; i < vr->sh_info && off + sizeof(Elf64_Verneed) <= vr->sh_size; i++) {
		const Elf64_Verneed *vn = (const void *)(e->map + vr->sh_offset + off);
		size_t aoff = off + vn->vn_aux;
		for (unsigned j = 0; j < vn->vn_cnt && aoff + sizeof(Elf64_Vernaux) <= vr->sh_size; j++) {
			const Elf64_Vernaux *va = (const void *)(e->map + vr->sh_offset + aoff);
			if (va->vna_other == want && va->vna_name < vstrsize &&
			    memchr(vstr + va->vna_name, 0, vstrsize - va->vna_name))
				return vstr + va->vna_name;
			if (!va->vna_next)
				break;
			aoff += va->vna_next;
		}
		if (!vn->vn_next)
			break;
		off += vn->vn_next;
	}
	return NULL;
}

/* The link map's name of the object holding this code, as dladdr gives it
 * (the module scan reads the same names).  "" when the runtime is linked
 * into the executable (libfntrace.a): then nothing is the runtime's alone. */
int fnt_elf_is_runtime(const char *path)
{
	static const char *own;
	if (!own) {
		Dl_info di;
		const char *name = dladdr((void *)fnt_elf_is_runtime, &di) && di.dli_fname ? di.dli_fname : "";
		__atomic_store_n(&own, name, __ATOMIC_RELEASE);
	}
	const char *o = __atomic_load_n(&own, __ATOMIC_ACQUIRE);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return (*o && !strcmp(path, o)) || !strncmp(base, "libfntrace", 10);
}
