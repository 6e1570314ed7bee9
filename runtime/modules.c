/*
 * modules.c - the module map: which ELF objects are mapped where, and when.
 *
 * At start (and in a forked child) every loaded object is recorded with
 * dl_iterate_phdr; after each dlopen/dlclose the list is walked again and the
 * difference is written as MODULE_LOAD / MODULE_UNLOAD meta records, each
 * timestamped, so the reader can resolve an address against the module that
 * was mapped at that moment even when a library is reloaded elsewhere.  The
 * build-id is read from the object's notes in memory: no file I/O.
 */
#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "runtime/runtime.h"

#define MAX_MODULES 4096

struct module_seen {
	uint64_t bias, lo, hi;
	uint32_t name_hash;
	uint8_t seen;
	struct fnt_meta_module rec;
	char *path;
};

static struct module_seen modules[MAX_MODULES];
static int n_modules;
/* The lock on the table: the id of the thread that holds it, 0 when free.
 * An id, not a mutex, so that whoever waits for it can tell when the holder
 * is its own thread (fnt_modules_lock). */
static uint32_t scan_owner;
static char exe_path[4096];

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static void read_build_id(struct dl_phdr_info *info, struct fnt_meta_module *rec)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p, *end;
		if (ph->p_type != PT_NOTE)
			continue;
		p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			size_t namesz = (nh->n_namesz + 3) & ~3u, descsz = (nh->n_descsz + 3) & ~3u;
			const uint8_t *name = p + sizeof(*nh), *desc = name + namesz;
			if (desc + descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
			    nh->n_descsz <= sizeof(rec->build_id)) {
				rec->build_id_len = (uint8_t)nh->n_descsz;
				memcpy(rec->build_id, desc, nh->n_descsz);
				return;
			}
			p = desc + descsz;
		}
	}
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *name = info->dlpi_name;
	uint64_t lo = UINT64_MAX, hi = 0;
	uint32_t h;
	(void)size;
	(void)arg;

	if (!name || !*name)
		name = exe_path;
	if (!*name || !strncmp(name, "linux-vdso", 10) || !strncmp(name, "linux-gate", 10))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (hi <= lo)
		return 0;
	h = hash_str(name);
	for (int i = 0; i < n_modules; i++) {
		struct module_seen *m = &modules[i];
		if (m->bias == info->dlpi_addr && m->lo == lo && m->name_hash == h && !m->seen) {
			m->seen = 1;
			return 0;
		}
	}
	if (n_modules == MAX_MODULES)
		return 0;
	struct module_seen *m = &modules[n_modules];
	memset(m, 0, sizeof(*m));
	/* dlopen("./libplugin.so") leaves a relative name in the link map: the
	 * trace gets the absolute path, resolved now (right after the dlopen,
	 * in its cwd), so a trace read from another directory still finds it */
	char abs_path[PATH_MAX];
	if (name[0] != '/' && strchr(name, '/') && realpath(name, abs_path))
		name = abs_path;
	m->path = strdup(name);
	if (!m->path)
		return 0;
	n_modules++;
	m->bias = info->dlpi_addr;
	m->lo = lo;
	m->hi = hi;
	m->name_hash = h;
	m->seen = 2;                     /* new */
	m->rec.ticks = fnt_now();
	m->rec.bias = info->dlpi_addr;
	m->rec.lo = lo;
	m->rec.hi = hi;
	read_build_id(info, &m->rec);
	return 0;
}

/* with the table's lock held (scan_owner).  The modules' files are read
 * (ELF headers, for library calls and name filters): cancellation points
 * in glibc, so its callers turn cancellation off (a pending cancel was
 * taken inside a dlopen, which is none, with the dynamic linker's lock
 * held: every later dlopen hung) */
static void scan_locked(void)
{
	if (!*exe_path)
		fnt_self_exe(exe_path, sizeof(exe_path));
	for (int i = 0; i < n_modules; i++)
		modules[i].seen = 0;
	dl_iterate_phdr(scan_one, NULL);
	for (int i = 0; i < n_modules; i++) {
		struct module_seen *m = &modules[i];
		if (m->seen == 2) {
			fnt_meta_append(FNT_META_MODULE_LOAD, &m->rec, sizeof(m->rec), m->path, strlen(m->path) + 1);
			fnt_argspec_module(m->path, m->bias);
			fnt_libcall_module(m->path, m->bias);
#ifndef FNT_STATIC_ARCHIVE
			fnt_patch_module(m->path, m->bias);
#endif
		} else if (m->seen == 0) {
#ifndef FNT_STATIC_ARCHIVE
			fnt_patch_module_gone(m->lo, m->hi);    /* its pads and prologues are gone with it */
#endif
			m->rec.ticks = fnt_now();
			fnt_meta_append(FNT_META_MODULE_UNLOAD, &m->rec, sizeof(m->rec), m->path, strlen(m->path) + 1);
			free(m->path);
			modules[i] = modules[--n_modules];
			i--;
		}
	}
	if (fnt_filtering || fnt_trig_flags) {
		static struct fnt_module_ref refs[MAX_MODULES];
		for (int i = 0; i < n_modules; i++)
			refs[i] = (struct fnt_module_ref){ modules[i].path, modules[i].bias, modules[i].lo, modules[i].hi };
		fnt_filter_modules(refs, n_modules);
	}
}

static int scan_trylock(uint32_t self)
{
	uint32_t free = 0;
	return __atomic_compare_exchange_n(&scan_owner, &free, self, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* for a scan: another thread's ends (a signal handler of this thread's
 * never scans inside one, the guard being held) */
static void scan_lock_take(void)
{
	uint32_t self = fnt_gettid();
	struct timespec nap = { 0, 50000 };
	for (int i = 0; !scan_trylock(self); i++) {
		/* (what a seccomp filter forbids is not called: sandbox.c) */
		if (i >= 100 && !fnt_denied(SYS_nanosleep) && !fnt_denied(SYS_clock_nanosleep))
			nanosleep(&nap, NULL);
		else if (!fnt_denied(SYS_sched_yield))
			sched_yield();
	}
}

void fnt_modules_unlock(void)
{
	__atomic_store_n(&scan_owner, 0, __ATOMIC_RELEASE);
}

void fnt_modules_scan(void)
{
	int cancel, off = fnt_cancel_off(&cancel);   /* (the wait below naps: nanosleep) */
	scan_lock_take();
	scan_locked();
	fnt_modules_unlock();
	if (off)
		fnt_cancel_back(cancel);
}

/* fork, and a vfork child's first file: the table must not change while
 * it is copied, so its lock is taken; 1 when it was, 0 when the table is
 * taken as it is.  Never waits for the thread that holds it when that is
 * this one (a signal handler that forks, interrupting a scan of its own
 * thread) or the one whose TLS this is (a vfork child's parent, which
 * waits for it): the runtime never deadlocks its host.  Another thread's
 * scan is waited for, 2 s at most. */
int fnt_modules_lock(void)
{
	uint32_t self = fnt_gettid(), owner = __atomic_load_n(&scan_owner, __ATOMIC_RELAXED);
	struct timespec t0, now, nap = { 0, 100000 };
	if (owner && (owner == self || owner == fnt_tls_owner()))
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!scan_trylock(self)) {
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 2)
			return 0;
	}
	return 1;
}

/* a child cloned without any prepare step: the lock may be held by a
 * thread that is not in this process */
void fnt_modules_lock_reset(void)
{
	scan_owner = 0;
}

/* In a forked child: record the modules it inherited from the table, not
 * with dl_iterate_phdr, whose loader lock another thread of the parent may
 * have held at the fork. */
void fnt_modules_fork_child(void)
{
	for (int i = 0; i < n_modules; i++) {
		struct module_seen *m = &modules[i];
		m->rec.ticks = fnt_now();
		fnt_meta_append(FNT_META_MODULE_LOAD, &m->rec, sizeof(m->rec), m->path, strlen(m->path) + 1);
	}
	fnt_argspec_fork_child();
	fnt_libcall_fork_child();
}

#ifndef FNT_STATIC_ARCHIVE
/* Constructors and dlopen: a module's constructors run inside dlopen,
 * after the dynamic linker has relocated it but before dlopen returns and
 * the wrapper below records it.  Their library calls would go untraced
 * (the module's GOT is hooked by the scan), and so would the functions -P
 * selects in it (its pads are patched, its prologues moved by the scan).
 * So when the linker has mapped new modules
 * (dl_state_hook, at RT_CONSISTENT), each one's DT_INIT entry, in its
 * .dynamic, which is still writable then, is pointed at a thunk of ours:
 * the linker calls it first of the module's constructors, once relocation
 * is done, and the first one called records every new module
 * (scan_locked) and goes on into the real _init (fnt_init_trap).  Modules
 * with no DT_INIT (rare: crti.o gives every gcc or clang link one) are
 * recorded after the dlopen, as before.  A fired trap leaves the module's
 * DT_INIT pointing at its thunk (the page is read-only by then), which
 * nothing calls again; the thunk keeps leading to the real _init until the
 * module is gone, and only then serves another. */
#define MAX_TRAPS 1024
#define TRAP_SIZE 32

void fnt_init_trap_entry(void) FNT_HIDDEN;
uintptr_t fnt_init_trap(uint64_t i) FNT_HIDDEN;

static struct {
	uint64_t l_addr;                 /* 0: free */
	uint64_t init;                   /* the real DT_INIT (from l_addr) */
	const void *ld;                  /* the module's .dynamic */
	int fired;
} traps[MAX_TRAPS];
static uint8_t *trap_code;               /* MAX_TRAPS thunks of TRAP_SIZE bytes */
/* the link map at the last RT_CONSISTENT: the modules not in it are new
 * at the next (the linker lists them before its RT_ADD already) */
static struct {
	const struct link_map *l;
	uint64_t l_addr;
} before[MAX_MODULES];
static size_t n_before;
static int before_valid;

static void traps_note_map(void)
{
	n_before = 0;
	before_valid = 1;
	for (const struct link_map *l = _r_debug.r_map; l; l = l->l_next) {
		if (n_before == MAX_MODULES) {
			before_valid = 0;
			return;
		}
		before[n_before].l = l;
		before[n_before++].l_addr = l->l_addr;
	}
}

static void traps_init(void)
{
	uint8_t *c = mmap(NULL, MAX_TRAPS * TRAP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t entry = (uintptr_t)fnt_init_trap_entry;
	if (c == MAP_FAILED)
		return;
	for (uint32_t i = 0; i < MAX_TRAPS; i++) {
		uint8_t *t = c + i * TRAP_SIZE;
		static const uint8_t head[] = { 0xf3, 0x0f, 0x1e, 0xfa,          /* endbr64 */
						0x49, 0xc7, 0xc3 };              /* mov $imm32, %r11 */
		memcpy(t, head, sizeof(head));
		memcpy(t + 7, &i, 4);
		t[11] = 0xff;                    /* jmp *0(%rip) */
		t[12] = 0x25;
		memset(t + 13, 0, 4);
		memcpy(t + 17, &entry, 8);
	}
	if (mprotect(c, MAX_TRAPS * TRAP_SIZE, PROT_READ | PROT_EXEC)) {
		munmap(c, MAX_TRAPS * TRAP_SIZE);
		return;
	}
	trap_code = c;
}

/* whether the module's .dynamic is writable: its PT_DYNAMIC's flags, as
 * the dynamic linker reads them (it writes there too, before relocation
 * makes it read-only, when they say so), from dl_iterate_phdr (its lock
 * is not held at RT_CONSISTENT, and is recursive) */
struct dyn_probe {
	uint64_t l_addr;
	int writable;
};

static int probe_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct dyn_probe *p = arg;
	(void)size;
	if (info->dlpi_addr != p->l_addr)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			p->writable = (info->dlpi_phdr[i].p_flags & PF_W) != 0;
	return 1;
}

static int dynamic_writable(const struct link_map *l)
{
	struct dyn_probe p = { l->l_addr, 0 };
	dl_iterate_phdr(probe_one, &p);
	return p.writable;
}

/* point the new module l's DT_INIT at a free thunk */
static void trap_arm(const struct link_map *l)
{
	ElfW(Dyn) *init = NULL;
	if (!trap_code || !l->l_ld || !dynamic_writable(l))
		return;
	for (ElfW(Dyn) *d = l->l_ld; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_INIT) {
			init = d;
			break;
		}
	if (!init)
		return;
	for (uint32_t i = 0; i < MAX_TRAPS; i++)
		if (!traps[i].l_addr) {
			traps[i].l_addr = l->l_addr;
			traps[i].init = init->d_un.d_ptr;
			traps[i].ld = l->l_ld;
			traps[i].fired = 0;
			init->d_un.d_ptr = (uintptr_t)(trap_code + i * TRAP_SIZE) - l->l_addr;
			return;
		}
}

/* A module's first constructor call (the loader's lock held): the real
 * _init, after the new modules are recorded, unless this thread is in the
 * runtime already or another holds the scan (then the dlopen wrapper
 * records them, after) */
static void init_nothing(void)
{
}

uintptr_t fnt_init_trap(uint64_t i)
{
	if (i >= MAX_TRAPS || !traps[i].l_addr)
		return (uintptr_t)init_nothing;       /* (never: a slot is freed once its module is gone) */
	uintptr_t real = traps[i].l_addr + traps[i].init;
	if (traps[i].fired++)
		return real;
	if (fnt_trace_header() && !fnt_self.busy && scan_trylock(fnt_gettid())) {
		int cancel, off = fnt_cancel_off(&cancel);
		fnt_self.busy = FNT_BUSY_RUNTIME;
		scan_locked();
		fnt_self.busy = 0;
		fnt_modules_unlock();
		if (off)
			fnt_cancel_back(cancel);
	}
	return real;
}

/* The dynamic linker calls _dl_debug_state (the address r_debug gives
 * debuggers, r_brk) at each change of the link map, with its lock held:
 * free the traps of modules that are gone (a dlopen that failed after
 * mapping them); at RT_CONSISTENT, once new modules are mapped and before
 * they are relocated, arm the traps of those that were not there at the
 * last one. */
static void dl_state_hook(void)
{
	for (uint32_t i = 0; i < MAX_TRAPS; i++) {
		int live = 0;
		if (!traps[i].l_addr)
			continue;
		for (const struct link_map *l = _r_debug.r_map; l && !live; l = l->l_next)
			live = l->l_addr == traps[i].l_addr && l->l_ld == traps[i].ld;
		if (!live)
			traps[i].l_addr = 0;
	}
	if (_r_debug.r_state != RT_CONSISTENT)
		return;
	if (before_valid)
		for (const struct link_map *l = _r_debug.r_map; l; l = l->l_next) {
			int old = 0;
			for (size_t k = 0; k < n_before && !old; k++)
				old = before[k].l == l && before[k].l_addr == l->l_addr;
			if (!old && l->l_addr && l->l_name && *l->l_name)
				trap_arm(l);
		}
	traps_note_map();
}

/* _dl_debug_state is `ret` followed by padding to the next function (or
 * endbr64; ret): its first 5 bytes become a jump to a stub within reach,
 * `jmp *dl_state_hook`, which returns to the dynamic linker itself.  Left
 * alone when it looks like anything else. */
void fnt_modules_watch_loads(void)
{
	static int done;
	uint8_t *b = (uint8_t *)_r_debug.r_brk, *s;
	uintptr_t hook = (uintptr_t)dl_state_hook;
	int ok = 1;

	if (done++ || !b || ((uintptr_t)b & 7) > 3)
		return;                  /* (the 5 bytes must lie in one aligned 8-byte word) */
	traps_init();
	traps_note_map();
	if (b[0] == 0xc3) {
		for (int i = 1; i < 5; i++)
			ok &= b[i] == 0x66 || b[i] == 0x2e || b[i] == 0x0f || b[i] == 0x1f || b[i] == 0x90 ||
			      b[i] == 0x84 || b[i] == 0x00 || b[i] == 0x40 || b[i] == 0x44 || b[i] == 0xcc;
	} else {
		ok = b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa && b[4] == 0xc3;
	}
	if (!ok || !(s = fnt_near_alloc((uintptr_t)b, (uintptr_t)b + 5, 14)))
		return;
	s[0] = 0xff;                     /* jmp *0(%rip) */
	s[1] = 0x25;
	memset(s + 2, 0, 4);
	memcpy(s + 6, &hook, 8);
	if (fnt_near_seal(s, 14))
		return;
	uintptr_t page = (uintptr_t)b & ~(uintptr_t)4095;   /* (the aligned word lies in one page) */
	if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))
		return;
	uint64_t w, *word = (uint64_t *)((uintptr_t)b & ~(uintptr_t)7);
	size_t at = (uintptr_t)b & 7;
	int32_t rel = (int32_t)((intptr_t)s - (intptr_t)(b + 5));
	memcpy(&w, word, 8);
	((uint8_t *)&w)[at] = 0xe9;      /* jmp rel32 */
	memcpy((uint8_t *)&w + at + 1, &rel, 4);
	__atomic_store_n(word, w, __ATOMIC_RELEASE);
	mprotect((void *)page, 4096, PROT_READ | PROT_EXEC);
}

/* The dl* wrappers: call the real function, then record what changed. */

FNT_EXPORT void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);
	void *h;
	if (!real)
		real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	if (!real)
		return NULL;
	h = real(file, mode);
	/* whatever this thread has done so far: an uninstrumented host's own
	 * thread loading an instrumented plugin is the usual case */
	if (h && fnt_trace_header() && !fnt_self.busy) {
		fnt_self.busy = FNT_BUSY_RUNTIME;      /* a signal handler here must not re-enter the runtime */
		fnt_modules_scan();
		fnt_self.busy = 0;
	}
	return h;
}

FNT_EXPORT int dlclose(void *handle)
{
	static int (*real)(void *);
	int r;
	if (!real)
		real = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!real)
		return -1;
	r = real(handle);
	if (fnt_trace_header() && !fnt_self.busy) {
		fnt_self.busy = FNT_BUSY_RUNTIME;
		fnt_modules_scan();
		fnt_self.busy = 0;
	}
	return r;
}
#endif
