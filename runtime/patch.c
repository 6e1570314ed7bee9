/*
 * patch.c - -fpatchable-function-entry=N (N >= 5, M = 0): turn the NOP pad
 * at the start of the selected functions into a call to __fentry__, so that
 * gcc and clang builds with patchable entries are traced exactly like
 * -pg -mfentry ones, and the functions left alone cost nothing.
 *
 * The pads are listed in the module's __patchable_function_entries section
 * (allocated, so read from memory after relocation).  Which functions are
 * patched: the FNTRACE_PATCH globs (`record --patch`) when given, every
 * function otherwise (plus, always, the ones an -A/-R spec names).  Patching
 * happens when the module is first seen: at start-up, from the runtime's
 * constructor, before main and before any thread of the program exists;
 * and for a dlopen'ed module right after dlopen returns, before the caller
 * can call into it (another thread already running the module's code while
 * it is patched is not supported).  The call cannot reach libfntrace.so
 * with a rel32 from a PIE, so it goes to a 14-byte stub (jmp *__fentry__)
 * in a page mapped within 2 GB of the module.
 */
#ifndef FNT_STATIC_ARCHIVE
#include <elf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fntrace.h"
#include "runtime/runtime.h"

void __fentry__(void);

static int is_pad(const uint8_t *p)
{
	static const uint8_t nops[5] = { 0x90, 0x90, 0x90, 0x90, 0x90 };
	return !memcmp(p, nops, 5) || (p[0] == 0x0f && p[1] == 0x1f && p[2] == 0x44 && p[3] == 0x00);
}

static int cmp_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return x < y ? -1 : x > y;
}

/* a page for the stub within rel32 reach of [lo, hi) */
static uint8_t *stub_near(uintptr_t lo, uintptr_t hi)
{
	long pg = sysconf(_SC_PAGESIZE);
	for (uintptr_t k = 1; k < 4096; k++) {
		uintptr_t want = ((lo & ~(uintptr_t)(pg - 1)) - k * 0x100000u);
		if (want > lo || hi - want > 0x7fff0000u)
			break;
		void *m = mmap((void *)want, (size_t)pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m == MAP_FAILED)
			continue;
		if ((uintptr_t)m != want) {
			munmap(m, (size_t)pg);
			continue;
		}
		uint8_t *s = m;
		uintptr_t target = (uintptr_t)__fentry__;
		s[0] = 0xff;    /* jmp *0(%rip) */
		s[1] = 0x25;
		memset(s + 2, 0, 4);
		memcpy(s + 6, &target, 8);
		if (mprotect(m, (size_t)pg, PROT_READ | PROT_EXEC)) {
			munmap(m, (size_t)pg);
			return NULL;
		}
		return s;
	}
	return NULL;
}

static int wanted(const char *name, char **globs, int n_globs)
{
	if (!n_globs)
		return 1;
	for (int i = 0; i < n_globs; i++)
		if (!fnmatch(globs[i], name, 0))
			return 1;
	return 0;
}

void fnt_patch_module(const char *path, uint64_t bias)
{
	struct stat st;
	const uint8_t *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uintptr_t *pads = NULL;
	size_t n_pads = 0, size;
	char *globs_text = NULL, *globs[64];
	int n_globs = 0;
	long pg = sysconf(_SC_PAGESIZE);

	if (fd < 0)
		return;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return;
	}
	size = (size_t)st.st_size;
	m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	const Elf64_Ehdr *eh = (const void *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
		goto out;
	const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
	const Elf64_Shdr *names = &sh[eh->e_shstrndx];
	if (names->sh_offset > size || names->sh_size > size - names->sh_offset)
		goto out;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		static const char want[] = "__patchable_function_entries";
		if (sh[i].sh_name + sizeof(want) > names->sh_size ||
		    memcmp(m + names->sh_offset + sh[i].sh_name, want, sizeof(want)) || !(sh[i].sh_flags & SHF_ALLOC))
			continue;
		/* the entries, relocated, in memory */
		const uintptr_t *e = (const uintptr_t *)(uintptr_t)(bias + sh[i].sh_addr);
		size_t k = sh[i].sh_size / 8;
		uintptr_t *np = realloc(pads, (n_pads + k) * sizeof(*pads));
		if (!np)
			goto out;
		pads = np;
		memcpy(pads + n_pads, e, k * 8);
		n_pads += k;
	}
	if (!n_pads)
		goto out;
	qsort(pads, n_pads, sizeof(*pads), cmp_addr);
	const char *env = getenv(FNTRACE_ENV_PATCH);
	if (env && *env && (globs_text = strdup(env))) {
		char *save = NULL;
		for (char *tok = strtok_r(globs_text, ";", &save); tok && n_globs < 64; tok = strtok_r(NULL, ";", &save))
			globs[n_globs++] = tok;
	}
	uint8_t *stub = stub_near(pads[0], pads[n_pads - 1] + 5);
	if (!stub)
		goto out;
	for (int want = SHT_SYMTAB; want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0) {
		int found = 0;
		for (unsigned i = 0; i < eh->e_shnum; i++) {
			if (sh[i].sh_type != (unsigned)want || sh[i].sh_link >= eh->e_shnum)
				continue;
			const Elf64_Shdr *strs = &sh[sh[i].sh_link];
			if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
			    strs->sh_offset > size || strs->sh_size > size - strs->sh_offset)
				continue;
			const Elf64_Sym *sym = (const void *)(m + sh[i].sh_offset);
			const char *str = (const char *)(m + strs->sh_offset);
			found = 1;
			for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); k++) {
				if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || !sym[k].st_value ||
				    sym[k].st_shndx == SHN_UNDEF || sym[k].st_name >= strs->sh_size ||
				    !memchr(str + sym[k].st_name, 0, strs->sh_size - sym[k].st_name))
					continue;
				uintptr_t a = (uintptr_t)(bias + sym[k].st_value);
				const char *name = str + sym[k].st_name;
				/* the pad is at the symbol, or after its endbr64 */
				if (!bsearch(&a, pads, n_pads, sizeof(*pads), cmp_addr)) {
					a += 4;
					if (!bsearch(&a, pads, n_pads, sizeof(*pads), cmp_addr))
						continue;
				}
				if (!is_pad((const uint8_t *)a) ||
				    (!wanted(name, globs, n_globs) && !fnt_argspec_find(a) && !fnt_argspec_find(a - 4)))
					continue;
				int64_t rel = (int64_t)((uintptr_t)stub - (a + 5));
				if (rel != (int32_t)rel)
					continue;
				uint8_t call[5] = { 0xe8 };
				int32_t r32 = (int32_t)rel;
				memcpy(call + 1, &r32, 4);
				uintptr_t p0 = a & ~(uintptr_t)(pg - 1), p1 = (a + 5 + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1);
				if (mprotect((void *)p0, p1 - p0, PROT_READ | PROT_WRITE | PROT_EXEC))
					continue;
				memcpy((void *)a, call, 5);
				mprotect((void *)p0, p1 - p0, PROT_READ | PROT_EXEC);
			}
		}
		if (found)
			break;
	}
out:
	free(globs_text);
	free(pads);
	munmap((void *)m, size);
}
#endif
