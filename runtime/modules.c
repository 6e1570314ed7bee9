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
#include <pthread.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
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
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
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

void fnt_modules_scan(void)
{
	pthread_mutex_lock(&scan_lock);
	if (!*exe_path) {
		ssize_t l = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
		if (l > 0)
			exe_path[l] = 0;
	}
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
	pthread_mutex_unlock(&scan_lock);
}

/* fork: the prepare handler holds scan_lock so the table is consistent
 * while the process is copied; both sides let go of it after */
void fnt_modules_lock(void)
{
	pthread_mutex_lock(&scan_lock);
}

void fnt_modules_unlock(void)
{
	pthread_mutex_unlock(&scan_lock);
}

/* a child cloned without any prepare step: the lock may be held by a
 * thread that is not in this process */
void fnt_modules_lock_reset(void)
{
	pthread_mutex_init(&scan_lock, NULL);
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
		fnt_self.busy = 1;      /* a signal handler here must not re-enter the runtime */
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
		fnt_self.busy = 1;
		fnt_modules_scan();
		fnt_self.busy = 0;
	}
	return r;
}
#endif
