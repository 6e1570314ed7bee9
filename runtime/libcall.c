/*
 * libcall.c - library calls: the calls an instrumented module makes into
 * other shared objects, through its PLT (JUMP_SLOT) or, with -fno-plt,
 * straight through its GOT (GLOB_DAT of a function).
 *
 * When a module is first seen (at start, after each dlopen) and its code
 * calls our hooks, each of those GOT slots is pointed at a stub of its own
 * (32 bytes of code in a page of ours: `movabs $slot_info, %r11;
 * jmp *fnt_libcall_entry`).  The entry trampoline (arch/x86_64/fentry.S)
 * saves every call-clobbered register, records the entry through the same
 * code as -pg -mfentry (runtime/fentry.c: shadow stack, return-address swap,
 * -A/-R capture, record-time filters), and jumps to the real target with
 * the registers and stack as the caller left them; the return comes back
 * through fnt_return_trampoline.  So exceptions, longjmp, pthread_exit and
 * fork are handled by what fentry mode already does.
 *
 * The event's function address is the calling module's GOT slot: it lies in
 * that module's mapping, so the reader knows the module, and symbols/ names
 * an address on a GOT slot by its relocation's .dynsym symbol ("qsort"): the
 * name needs no debug info.  The function the slot led to (an IFUNC's
 * choice, such as __memmove_avx_unaligned_erms for memcpy, or the alias that
 * defines it, _IO_puts for puts) goes into the trace beside it
 * (FNT_META_LIBCALL), for what must find the call's code by address: the
 * perf commands, which match a sample's innermost frame to it.
 *
 * Functions that must keep their return address (libcall_kind, see
 * doc/libcall.md) have stubs that go straight to the trampoline's general
 * path: one that does not return (exit, longjmp, pthread_exit) leaves its
 * frame on the shadow stack unswapped, for what ends it to close; one that
 * returns twice (setjmp, vfork, getcontext) is its entry and exit at once.
 * Left alone: our own hooks and the unwinder they steer, the start-up and
 * tear-down code around main, and slots still lazily bound to the module's
 * PLT that dlvsym cannot resolve (`fntrace record` sets LD_BIND_NOW so that
 * there are none).  Stubs are
 * never freed: a thread may be between a slot and its stub when a library
 * is closed, and a closed module's stubs are simply never reached again.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "fntrace.h"
#include "runtime/runtime.h"
#include "runtime/event.h"
#include "runtime/fentry.h"

#ifdef FNT_STATIC_ARCHIVE
int fnt_libcall_on(void)
{
	return 0;
}

void fnt_libcall_init(void)
{
}

void fnt_libcall_fork_child(void)
{
}

void fnt_libcall_module(const char *path, uint64_t bias)
{
	(void)path;
	(void)bias;
}

int fnt_libcall_zero(const char *name)
{
	(void)name;
	return 0;
}

int fnt_libcall_traced(const struct fnt_elf *e, const char *path)
{
	(void)e;
	(void)path;
	return 0;
}
#else

struct fnt_regs;
struct libcall_slot {
	uintptr_t target;        /* the real function */
	uintptr_t got;           /* the GOT slot: the event's function address */
};
/* (an array of them is the body of an FNT_META_LIBCALL record) */
_Static_assert(sizeof(struct libcall_slot) == sizeof(struct fnt_meta_libcall) &&
	       offsetof(struct libcall_slot, target) == offsetof(struct fnt_meta_libcall, target) &&
	       offsetof(struct libcall_slot, got) == offsetof(struct fnt_meta_libcall, slot),
	       "struct libcall_slot is the LIBCALL record's layout");

void fnt_libcall_entry(void) FNT_HIDDEN;
void fnt_libcall_entry_slow(void) FNT_HIDDEN;
uintptr_t fnt_libcall_enter(struct fnt_regs *r, uintptr_t info, uintptr_t *slot) FNT_HIDDEN;
void fnt_shadow_enter(struct fnt_regs *r, uintptr_t fn, uintptr_t *slot) FNT_HIDDEN;
void fnt_shadow_enter_how(struct fnt_regs *r, uintptr_t fn, uintptr_t *slot, int how) FNT_HIDDEN;

#define STUB_SIZE 32

static int mode;                 /* 0 off, 1 instrumented modules, 2 also between libraries */

/* every module's hooked slots (scan lock held), for a forked child's trace */
#define MAX_HOOKED 1024
static struct {
	const struct libcall_slot *info;
	size_t n;
} hooked[MAX_HOOKED];
static size_t n_hooked;

/* the slots and their targets into the trace, in records of at most 256 */
static void record_slots(const struct libcall_slot *info, size_t n)
{
	for (size_t i = 0; i < n; i += 256)
		fnt_meta_append(FNT_META_LIBCALL, info + i, (n - i < 256 ? n - i : 256) * sizeof(*info), NULL, 0);
}

void fnt_libcall_fork_child(void)
{
	for (size_t i = 0; i < n_hooked; i++)
		record_slots(hooked[i].info, hooked[i].n);
}

int fnt_libcall_on(void)
{
	return mode != 0;
}

void fnt_libcall_init(void)
{
	const char *env = getenv(FNTRACE_ENV_LIBCALL);
	mode = 1;
	if (env && *env)
		mode = !strcmp(env, "0") ? 0 : !strcmp(env, "nest") ? 2 : 1;
}

/* The general path of a library call's entry (arch/x86_64/fentry.S), with
 * the stub's %r11: its struct libcall_slot, and in the low bits how the
 * call is entered (enum libcall_kind: the stubs of the calls that keep
 * their return address come straight here, past the fast paths, which
 * swap it) */
uintptr_t fnt_libcall_enter(struct fnt_regs *r, uintptr_t info, uintptr_t *slot)
{
	const struct libcall_slot *s = (const struct libcall_slot *)(info & ~(uintptr_t)15);
	if (likely(!(info & 15)))
		fnt_shadow_enter(r, s->got, slot);
	else
		fnt_shadow_enter_how(r, s->got, slot, (int)(info & 15));
	return s->target;
}

/* How each imported function is traced, by its name (doc/libcall.md).
 * Most are plain calls: the entry, the return-address swap, the exit.
 * The rest keep their return address as it is: */
enum libcall_kind {
	LIBCALL_PLAIN = FNT_ENTER_SWAP,
	/* it does not return: its frame stays open on the shadow stack, kept
	 * (not swapped), until what leaves it closes it as unwound (longjmp's
	 * own UNWIND record, an exception's landing pad, pthread_exit), or the
	 * trace ends (exit, abort) */
	LIBCALL_NORETURN = FNT_ENTER_KEPT,
	/* it returns twice (setjmp, getcontext, vfork: a swapped address would
	 * be returned through twice, or by a child sharing the stack), switches
	 * contexts, or is the runtime's own catch hook (__cxa_begin_catch,
	 * which drops the frames below its caller's): a zero-length call,
	 * entry and exit at once */
	LIBCALL_ZERO = FNT_ENTER_ZERO,
	/* not traced: the runtime's own hooks and the unwinder it steers, and
	 * the start-up and tear-down machinery that runs around main (uftrace
	 * leaves those out too) */
	LIBCALL_SKIP,
};
_Static_assert(LIBCALL_PLAIN == 0 && LIBCALL_NORETURN < 16 && LIBCALL_ZERO < 16,
	       "a kind fits the low bits of a stub's 16-byte-aligned struct libcall_slot pointer");

static enum libcall_kind libcall_kind(const char *n)
{
	static const char *const noreturn[] = {
		"exit", "_exit", "_Exit", "quick_exit", "abort", "pthread_exit", "thrd_exit",
		"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
		"__stack_chk_fail", "__assert_fail", "__assert_perror_fail", "__assert",
		"__fortify_fail", "__chk_fail", "err", "errx", "verr", "verrx",
	};
	static const char *const zero[] = {
		"setjmp", "_setjmp", "__setjmp", "sigsetjmp", "__sigsetjmp", "savectx", "getcontext",
		"setcontext", "swapcontext", "vfork", "__vfork", "clone", "clone3", "__cxa_begin_catch",
	};
	static const char *const skip[] = {
		"__libc_start_main", "__libc_start_call_main", "__cxa_finalize", "__tls_get_addr",
		"__gmon_start__", "__monstartup", "_mcleanup", "mcount", "_mcount", "__fentry__",
		"__cyg_profile_func_enter", "__cyg_profile_func_exit",
	};
	if (!strncmp(n, "fnt_", 4) || !strncmp(n, "_Unwind_", 8) || !strncmp(n, "_dl_", 4) ||
	    !strncmp(n, "__fnt", 5))
		return LIBCALL_SKIP;
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strcmp(n, skip[i]))
			return LIBCALL_SKIP;
	for (size_t i = 0; i < sizeof(noreturn) / sizeof(noreturn[0]); i++)
		if (!strcmp(n, noreturn[i]))
			return LIBCALL_NORETURN;
	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (!strcmp(n, zero[i]))
			return LIBCALL_ZERO;
	return LIBCALL_PLAIN;
}

int fnt_libcall_zero(const char *name)
{
	return libcall_kind(name) == LIBCALL_ZERO;
}

int fnt_libcall_traced(const struct fnt_elf *e, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!mode || fnt_elf_is_runtime(path) || !strncmp(base, "ld-linux", 8) || !strncmp(base, "ld64.so", 7))
		return 0;
	if (fnt_elf_hooks(e, path) || fnt_prologue_wanted(e, path))
		return 1;      /* instrumented, or -P moves its prologues */
	return mode == 2 ? 2 : 0;
}

struct hook_scan {
	const struct fnt_elf *e;
	uint64_t bias, lo, hi;           /* the module's mapping (lazy slots point into it) */
	uint64_t relro_lo, relro_hi;     /* the pages made read-only after relocation */
	uint8_t *code;                   /* next stub */
	struct libcall_slot *info;       /* next slot info */
	size_t left;
	int relro_open;
};

/* Whether the function a slot leads to traces itself: it lies in a module
 * that calls the hooks (-finstrument-functions, -pg -mfentry), or it is one
 * that -P patches (a pad, or a moved prologue).  Then the call is its entry
 * already, and a library-call entry as well would show it twice. */
static int target_traces_itself(uintptr_t target, const char *name)
{
	static struct { uintptr_t base; int how; } seen[64];
	static unsigned n_seen;
	Dl_info di;
	int how = -1;
	static uintptr_t own_base;
	if (!own_base && dladdr((void *)fnt_libcall_module, &di))
		own_base = (uintptr_t)di.dli_fbase;
	if (!dladdr((void *)target, &di) || !di.dli_fname || !*di.dli_fname || (uintptr_t)di.dli_fbase == own_base)
		return 0;       /* (our own wrappers: dlopen, fork... are library calls) */
	for (unsigned i = 0; i < n_seen; i++)
		if (seen[i].base == (uintptr_t)di.dli_fbase)
			how = seen[i].how;
	if (how < 0) {
		struct fnt_elf t;
		unsigned hooks = 0;
		how = 0;
		if (!fnt_elf_open(&t, di.dli_fname)) {
			hooks = fnt_elf_hooks(&t, di.dli_fname);
			how = (hooks & (FNT_ELF_CYG | FNT_ELF_FENTRY)) ? 1 :
			      (hooks & FNT_ELF_PATCHABLE) ? 2 : fnt_prologue_wanted(&t, di.dli_fname) ? 3 : 0;
			fnt_elf_close(&t);
		}
		if (n_seen < sizeof(seen) / sizeof(seen[0]))
			seen[n_seen++].base = (uintptr_t)di.dli_fbase, seen[n_seen - 1].how = how;
	}
	if (how == 1)
		return 1;
	if (how >= 2) {
		/* selected by -P (pads without -P: every one) */
		char **globs;
		int n = fnt_patch_globs(&globs);
		return how == 2 ? fnt_patch_glob_match(name, globs, n) : n && fnt_patch_glob_match(name, globs, n);
	}
	return 0;
}

static void hook_slot(void *ctx, const char *name, uint64_t vaddr)
{
	struct hook_scan *h = ctx;
	uintptr_t *got = (uintptr_t *)(h->bias + vaddr);
	uintptr_t target;
	enum libcall_kind kind = libcall_kind(name);

	if (!h->left || kind == LIBCALL_SKIP)
		return;
	target = __atomic_load_n(got, __ATOMIC_RELAXED);
	if (!target)
		return;                  /* a weak function that is not there */
	if (target >= h->lo && target < h->hi) {
		/* still bound lazily to the module's own PLT: resolve it as the
		 * dynamic linker would, with the version the module asks for */
		const char *ver = fnt_elf_import_version(h->e, name);
		target = (uintptr_t)(ver ? dlvsym(RTLD_DEFAULT, name, ver) : dlsym(RTLD_DEFAULT, name));
		if (!target)
			return;
	}
	if (target_traces_itself(target, name))
		return;
	if ((uint64_t)got >= h->relro_lo && (uint64_t)got < h->relro_hi && !h->relro_open) {
		if (mprotect((void *)h->relro_lo, h->relro_hi - h->relro_lo, PROT_READ | PROT_WRITE))
			return;
		h->relro_open = 1;
	}
	h->info->target = target;
	h->info->got = (uintptr_t)got;
	uint8_t *c = h->code;
	uint64_t info = (uint64_t)(uintptr_t)h->info | (uint64_t)kind;
	uint64_t entry = (uint64_t)(uintptr_t)(kind == LIBCALL_PLAIN ? fnt_libcall_entry : fnt_libcall_entry_slow);
	c[0] = 0x49;                     /* movabs $info, %r11 */
	c[1] = 0xbb;
	memcpy(c + 2, &info, 8);
	c[10] = 0xff;                    /* jmp *0(%rip) */
	c[11] = 0x25;
	memset(c + 12, 0, 4);
	memcpy(c + 16, &entry, 8);
	memset(c + 24, 0xcc, STUB_SIZE - 24);
	h->code += STUB_SIZE;
	h->info++;
	h->left--;
	/* the slot is pointed at the stub once the stub is executable (see
	 * fnt_libcall_module); meanwhile the stub's padding keeps its address */
	memcpy(h->code - 8, &got, 8);
}

static void count_slot(void *ctx, const char *name, uint64_t vaddr)
{
	(void)name;
	(void)vaddr;
	(*(size_t *)ctx)++;
}

static void module_range(const struct fnt_elf *e, struct hook_scan *h)
{
	const Elf64_Ehdr *eh = e->eh;
	h->lo = UINT64_MAX;
	h->hi = 0;
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > e->size ||
	    (e->size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		return;
	const Elf64_Phdr *ph = (const void *)(e->map + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		uint64_t a = h->bias + ph[i].p_vaddr, b = a + ph[i].p_memsz;
		if (ph[i].p_type == PT_LOAD) {
			if (a < h->lo)
				h->lo = a;
			if (b > h->hi)
				h->hi = b;
		} else if (ph[i].p_type == PT_GNU_RELRO) {
			/* as the dynamic linker rounds it: the last partial page stays writable */
			h->relro_lo = a & ~4095ull;
			h->relro_hi = b & ~4095ull;
		}
	}
}

void fnt_libcall_module(const char *path, uint64_t bias)
{
	struct fnt_elf e;
	struct hook_scan h = { .e = &e, .bias = bias };
	size_t n = 0, bytes;
	uint8_t *block;
	int how;

	if (!mode || fnt_elf_open(&e, path))
		return;
	if (!(how = fnt_libcall_traced(&e, path)))
		goto out;
	fnt_elf_imports(&e, how == 2, count_slot, &n);
	if (!n)
		goto out;
	bytes = (n * (STUB_SIZE + sizeof(struct libcall_slot)) + 4095) & ~(size_t)4095;
	block = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (block == MAP_FAILED)
		goto out;
	module_range(&e, &h);
	h.code = block;
	h.info = (struct libcall_slot *)(block + n * STUB_SIZE);
	h.left = n;
	fnt_elf_imports(&e, how == 2, hook_slot, &h);
	/* the stubs become code, and only then do the slots point at them */
	if (mprotect(block, n * STUB_SIZE, PROT_READ | PROT_EXEC) == 0) {
		const struct libcall_slot *info = (const struct libcall_slot *)(block + n * STUB_SIZE);
		size_t hooks = (size_t)(h.code - block) / STUB_SIZE;
		/* recorded before any call through them can be */
		record_slots(info, hooks);
		if (hooks && n_hooked < MAX_HOOKED)
			hooked[n_hooked].info = info, hooked[n_hooked++].n = hooks;
		for (uint8_t *c = block; c < h.code; c += STUB_SIZE) {
			uintptr_t got;
			memcpy(&got, c + STUB_SIZE - 8, 8);
			__atomic_store_n((uintptr_t *)got, (uintptr_t)c, __ATOMIC_RELEASE);
		}
	}
	if (h.relro_open & 1)
		mprotect((void *)h.relro_lo, h.relro_hi - h.relro_lo, PROT_READ);
out:
	fnt_elf_close(&e);
}
#endif
