/*
 * record-symtab.c - the modules a trace uses, and the symbol tables
 * `record` saves for them into DIR/symtab/<build-id>.sym (symbols/symtab.h,
 * doc/format.md "Saved symbol tables"), so that the trace keeps its names
 * and file:line after the program is rebuilt or deleted.
 *
 * One walk of the events (thread by thread, in batches: the fast walk)
 * finds which modules have events, the functions that appear (the reader's
 * function ids), and the call sites and stack frames whose lines the views
 * print.  The trace directory and each snapshot-* in it are walked at the
 * end; while a flight recorder runs (no drain), each snapshot is walked as
 * soon as it is complete (symtab_watch_tick).  A table saved earlier for
 * the same build-id is merged, never lost.  Files are written as a
 * temporary name, then renamed: a reader sees a whole table or none.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "format/format.h"
#include "symbols/symtab.h"
#include "tool/tool.h"

struct addr_set {                       /* distinct file vaddrs */
	uint64_t *v;                    /* open addressing, value + 1 (0 empty) */
	size_t size, n;
};

static void set_add(struct addr_set *s, uint64_t a)
{
	size_t i;

	if (2 * (s->n + 1) > s->size) {
		struct addr_set o = *s;
		s->size = s->size ? 2 * s->size : 64;
		s->v = xcalloc(s->size, sizeof(*s->v));
		s->n = 0;
		for (size_t k = 0; k < o.size; k++)
			if (o.v[k])
				set_add(s, o.v[k] - 1);
		free(o.v);
	}
	for (i = (size_t)((a + 1) * 0x9E3779B97F4A7C15ull >> 7) & (s->size - 1); s->v[i]; i = (i + 1) & (s->size - 1))
		if (s->v[i] == a + 1)
			return;
	s->v[i] = a + 1;
	s->n++;
}

/* the values, sorted (malloc'd; *n) */
static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t *set_values(const struct addr_set *s, size_t *n)
{
	uint64_t *r = xmalloc((s->n ? s->n : 1) * sizeof(*r));
	*n = 0;
	for (size_t k = 0; k < s->size; k++)
		if (s->v[k])
			r[(*n)++] = s->v[k] - 1;
	qsort(r, *n, sizeof(*r), u64_cmp);
	return r;
}

/* per trace being walked: its file index -> used module index */
struct walk {
	struct used_modules *u;
	struct trace *t;
	size_t *map;                    /* by trace file index: module index + 1, 0 not yet */
};

static size_t module_of(struct walk *w, uint32_t file)
{
	const struct trace_file_ref *f = &w->t->files[file];
	struct used_modules *u = w->u;

	if (w->map[file])
		return w->map[file] - 1;
	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->v[i].path, f->path) && u->v[i].build_id_len == f->build_id_len &&
		    !memcmp(u->v[i].build_id, f->build_id, f->build_id_len))
			return (w->map[file] = i + 1) - 1;
	u->v = xrealloc(u->v, (u->n + 1) * sizeof(*u->v));
	memset(&u->v[u->n], 0, sizeof(u->v[u->n]));
	u->v[u->n].path = xstrdup(f->path);
	memcpy(u->v[u->n].build_id, f->build_id, f->build_id_len);
	u->v[u->n].build_id_len = f->build_id_len;
	u->v[u->n].funcs = xcalloc(1, sizeof(struct addr_set));
	u->v[u->n].addrs = xcalloc(1, sizeof(struct addr_set));
	w->map[file] = ++u->n;
	return u->n - 1;
}

static int on_batch(void *ctx, const struct trace_event *ev, size_t n)
{
	struct walk *w = ctx;

	/* module_of may move w->u->v: the index first */
	for (size_t i = 0, m; i < n; i++) {
		if (ev[i].kind == TRACE_ENTRY && ev[i].callsite && ev[i].callsite_file != TRACE_NO_FILE) {
			m = module_of(w, ev[i].callsite_file);
			set_add(w->u->v[m].addrs, ev[i].callsite_vaddr - 1);
		} else if (ev[i].kind == TRACE_STACK) {
			for (uint64_t k = 0; k < ev[i].count; k++) {
				if (ev[i].body->stack_file[k] == TRACE_NO_FILE)
					continue;
				m = module_of(w, ev[i].body->stack_file[k]);
				set_add(w->u->v[m].addrs, ev[i].body->stack_vaddr[k] - 1);
			}
		}
	}
	return 0;
}

/* one trace directory (or snapshot) into u; -1 if it cannot be opened */
static int collect_dir(struct used_modules *u, const char *dir)
{
	struct walk w = { .u = u };
	char err[512];

	if (trace_open(&w.t, dir, err, sizeof(err)))
		return -1;
	if (!w.t->n_procs) {
		trace_close(w.t);
		return -1;
	}
	w.map = xcalloc(w.t->n_files ? w.t->n_files : 1, sizeof(*w.map));
	trace_walk_batch(w.t, 0, on_batch, &w);
	for (size_t i = 0; i < w.t->n_funcs; i++)
		if (w.t->funcs[i].file != TRACE_NO_FILE) {
			size_t m = module_of(&w, w.t->funcs[i].file);
			set_add(u->v[m].funcs, w.t->funcs[i].vaddr);
		}
	if (u->totals)
		trace_totals_walked(w.t, u->totals);
	free(w.map);
	trace_close(w.t);
	return 0;
}

int used_modules_collect(struct used_modules *u, const char *dir)
{
	DIR *d;
	struct dirent *de;

	int snapshots = u->snapshots;
	struct trace_totals *totals = u->totals;

	memset(u, 0, sizeof(*u));
	u->snapshots = snapshots;
	u->totals = totals;
	if (collect_dir(u, dir))
		return -1;
	u->totals = NULL;       /* the snapshots' are not the trace's */
	if (!u->snapshots)
		return 0;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char sub[4400];
		struct stat st;
		if (strncmp(de->d_name, "snapshot-", 9))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (!lstat(sub, &st) && S_ISDIR(st.st_mode))
			collect_dir(u, sub);
	}
	if (d)
		closedir(d);
	return 0;
}

void used_modules_release(struct used_modules *u)
{
	for (size_t i = 0; i < u->n; i++) {
		free(u->v[i].path);
		free(u->v[i].funcs->v);
		free(u->v[i].addrs->v);
		free(u->v[i].funcs);
		free(u->v[i].addrs);
	}
	free(u->v);
	memset(u, 0, sizeof(*u));
}

/* DIR/symtab, made if needed; only a directory of ours, never a link */
static int open_symtab_dir(const char *dir, unsigned dir_mode)
{
	char path[4400];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/symtab", dir);
	if (mkdir(path, dir_mode) && errno != EEXIST)
		return -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022))) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	if (fd >= 0)
		fchmod(fd, dir_mode);
	return fd;
}

static int write_table(int dfd, const char *name, const uint8_t *buf, size_t len, unsigned mode)
{
	char tmp[128];
	int fd;
	size_t done = 0;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	fchmod(fd, mode);
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			close(fd);
			unlinkat(dfd, tmp, 0);
			return -1;
		}
		done += (size_t)n;
	}
	if (close(fd) || renameat(dfd, tmp, dfd, name)) {
		unlinkat(dfd, tmp, 0);
		return -1;
	}
	return 0;
}

/* the tables of the modules in u into top/symtab */
static void save_tables(struct used_modules *u_, const char *top, unsigned file_mode, unsigned dir_mode)
{
	struct used_modules u = *u_;
	const char *dir = top;
	struct symbols *syms;
	char symdir[4400];
	int dfd = -1;

	syms = symbols_new(NULL);
	snprintf(symdir, sizeof(symdir), "%s/symtab", dir);
	for (size_t i = 0; syms && i < u.n; i++) {
		struct used_module *m = &u.v[i];
		struct symtab old, st;
		char name[80], err[512];
		uint64_t *funcs, *addrs;
		size_t n_funcs, n_addrs, len;
		uint8_t *buf;
		int h, have_old;

		if (!m->build_id_len || (!m->funcs->n && !m->addrs->n && !m->all))
			continue;       /* no build-id: a table could not be matched to it */
		if (dfd < 0 && (dfd = open_symtab_dir(dir, dir_mode)) < 0) {
			warning("cannot save symbol tables into '%s': %s", symdir, strerror(errno));
			break;
		}
		h = symbols_add_module(syms, m->path, m->build_id, m->build_id_len);
		have_old = symtab_load(&old, symdir, m->build_id, m->build_id_len, err, sizeof(err)) == 0;
		funcs = set_values(m->funcs, &n_funcs);
		addrs = set_values(m->addrs, &n_addrs);
		if (symbols_save_table(syms, h, m->all ? NULL : funcs, n_funcs, addrs, n_addrs, have_old ? &old : NULL,
				       &st)) {
			const char *w = symbols_module_warning(syms, h);
			const char *cut = w ? strstr(w, "; names shown as") : NULL;
			if (!have_old)      /* the reader's warning, without what a reader does */
				warning("cannot save the symbols of '%s' into the trace: %.*s", m->path,
					w ? (int)(cut ? (size_t)(cut - w) : strlen(w)) : 27,
					w ? w : "it has no symbol table");
		} else {
			buf = symtab_encode(&st, &len);
			symtab_file_name(name, sizeof(name), m->build_id, m->build_id_len);
			if (!buf || write_table(dfd, name, buf, len, file_mode))
				warning("cannot write '%s/%s': %s", symdir, name, buf ? strerror(errno) : "out of memory");
			free(buf);
			symtab_release(&st);
		}
		if (have_old)
			symtab_release(&old);
		free(funcs);
		free(addrs);
	}
	if (dfd >= 0)
		close(dfd);
	symbols_free(syms);
}

/* whether a module built with -finstrument-functions made the hooks' calls:
 * one that imports __cyg_profile_func_enter; one that defines it only if it
 * is not where the hooks come from (libc's empty pair, the runtime itself:
 * by name, or the file record preloaded, FNTRACE_LIBRARY's under any name),
 * i.e. a program (or a library) with the runtime linked in statically,
 * wherever it is installed. */
static int instrumented(const char *path, const struct stat *runtime)
{
	int k = instrumentation_of(path);
	const char *base = strrchr(path, '/');
	struct stat st;
	base = base ? base + 1 : path;
	if (k & (2 | 8 | CYG_IMPORTED))
		return 1;
	if (!(k & 1) || !strncmp(base, "libc.so", 7) || !strncmp(base, "libfntrace.so", 13))
		return 0;
	return !runtime || stat(path, &st) || st.st_dev != runtime->st_dev || st.st_ino != runtime->st_ino;
}

/* no walk: the instrumented modules of the module map (an event's address
 * is in one: a function of it, or a GOT slot of it for a library call) */
static int collect_instrumented(struct used_modules *u, const char *dir, const struct stat *runtime)
{
	struct walk w = { .u = u };
	char err[512];

	memset(u, 0, sizeof(*u));
	if (trace_open(&w.t, dir, err, sizeof(err)))
		return -1;
	w.map = xcalloc(w.t->n_files ? w.t->n_files : 1, sizeof(*w.map));
	for (uint32_t i = 0; i < w.t->n_files; i++)
		if (w.t->files[i].build_id_len && instrumented(w.t->files[i].path, runtime)) {
			size_t m = module_of(&w, i);        /* may move u->v */
			u->v[m].all = 1;
		}
	free(w.map);
	trace_close(w.t);
	return 0;
}

int record_save_symtabs(const char *dir, unsigned file_mode, unsigned dir_mode, struct trace_totals *tt,
			const struct stat *runtime)
{
	struct used_modules u;

	u.snapshots = 1;
	u.totals = tt;
	if (tt ? used_modules_collect(&u, dir) : collect_instrumented(&u, dir, runtime))
		return -1;
	save_tables(&u, dir, file_mode, dir_mode);
	used_modules_release(&u);
	return tt ? 0 : -1;
}

/* ---- snapshots taken while the program runs ---- */

struct seen_snapshot {
	char *name;                     /* snapshot-x/pid-n.fnt */
	int64_t mtime_ns, size;
};

/* a snapshot file as complete as the runtime makes it: its header (written
 * last) carries the magic */
static int snapshot_complete(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	int ok = fd >= 0 && pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
		 !memcmp(magic, FNT_FILE_MAGIC, sizeof(magic));
	if (fd >= 0)
		close(fd);
	return ok;
}

/* 1 if DIR/sub holds a complete .fnt not seen yet (or changed since) */
static int snapshot_changed(struct symtab_watch *w, const char *dir, const char *sub)
{
	char path[4400];
	DIR *d;
	struct dirent *de;
	int changed = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name), k;
		char name[600], file[4400];
		struct stat st;

		if (l < 5 || strcmp(de->d_name + l - 4, ".fnt"))
			continue;
		snprintf(name, sizeof(name), "%s/%s", sub, de->d_name);
		snprintf(file, sizeof(file), "%s/%s", dir, name);
		if (lstat(file, &st) || !S_ISREG(st.st_mode))
			continue;
		for (k = 0; k < w->n; k++)
			if (!strcmp(w->seen[k].name, name))
				break;
		int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		if (k < w->n && w->seen[k].mtime_ns == mt && w->seen[k].size == (int64_t)st.st_size)
			continue;
		if (!snapshot_complete(file))
			continue;       /* being written: the next look */
		if (k == w->n) {
			w->seen = xrealloc(w->seen, (w->n + 1) * sizeof(*w->seen));
			w->seen[w->n++].name = xstrdup(name);
		}
		w->seen[k].mtime_ns = mt;
		w->seen[k].size = (int64_t)st.st_size;
		changed = 1;
	}
	if (d)
		closedir(d);
	return changed;
}

void symtab_watch_tick(struct symtab_watch *w)
{
	struct timespec now;
	DIR *d;
	struct dirent *de;

	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	if (w->next_ns && ns < w->next_ns)
		return;
	w->next_ns = ns + 500000000;    /* twice a second: a readdir and a few stats */
	d = opendir(w->dir);
	while (d && (de = readdir(d))) {
		struct used_modules u;
		char sub[4400];

		if (strncmp(de->d_name, "snapshot-", 9) || !snapshot_changed(w, w->dir, de->d_name))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", w->dir, de->d_name);
		memset(&u, 0, sizeof(u));
		if (used_modules_collect(&u, sub))
			continue;
		save_tables(&u, w->dir, w->file_mode, w->dir_mode);
		used_modules_release(&u);
	}
	if (d)
		closedir(d);
}

void symtab_watch_release(struct symtab_watch *w)
{
	for (size_t k = 0; k < w->n; k++)
		free(w->seen[k].name);
	free(w->seen);
	w->seen = NULL;
	w->n = 0;
}
