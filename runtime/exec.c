/*
 * exec.c - children keep being traced when the program gives them an
 * environment of its own, and the trace says which children could not be.
 *
 * A program that starts a child with an explicit environment (execve,
 * execle, execvpe, fexecve, posix_spawn, posix_spawnp with envp) often
 * builds it from scratch, without LD_PRELOAD and the FNTRACE_* settings
 * that `fntrace record` put in its own: the child ran untraced and nothing
 * said so.  The wrappers here put back, into a copy of the given
 * environment, every FNTRACE_* variable it lacks and libfntrace.so in
 * LD_PRELOAD, as they were when the runtime started.  A variable the
 * program set itself is kept as it set it.
 *
 * The copy lives on the stack (or in an anonymous mapping when the
 * environment is large): exec may be called in a vfork child, where malloc
 * is not safe.  The settings are copied once, at start-up, into static
 * storage.
 *
 * What cannot be traced is written down as an UNTRACED meta record by the
 * parent: an exec or spawn of a setuid/setgid program or one with file
 * capabilities (the kernel starts it in secure-execution mode, where the
 * loader ignores LD_PRELOAD), and a child forked after the process changed
 * its user, which can no longer create its trace file in the directory.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "runtime/runtime.h"

extern char **environ;

#define MAX_SAVED 48
#define SAVED_BYTES 65536

static char saved_buf[SAVED_BYTES];
static char *saved[MAX_SAVED];      /* "FNTRACE_X=..." and "LD_PRELOAD=..." as at start-up */
static int n_saved;
static const char *our_lib;         /* this library's path, if it was preloaded */
static char trace_dir_copy[4096];

/* At start-up, after the settings were read: keep what a child needs. */
void fnt_exec_init(const char *trace_dir)
{
	size_t used = 0;
	Dl_info info;

	strncpy(trace_dir_copy, trace_dir, sizeof(trace_dir_copy) - 1);
	for (char **e = environ; e && *e && n_saved < MAX_SAVED; e++) {
		size_t l = strlen(*e) + 1;
		if (strncmp(*e, "FNTRACE_", 8) && strncmp(*e, "LD_PRELOAD=", 11))
			continue;
		if (used + l > sizeof(saved_buf))
			break;
		memcpy(saved_buf + used, *e, l);
		saved[n_saved++] = saved_buf + used;
		if (!strncmp(*e, "LD_PRELOAD=", 11) && dladdr((void *)fnt_exec_init, &info) && info.dli_fname &&
		    strstr(*e, info.dli_fname))
			our_lib = info.dli_fname;
		used += l;
	}
}

/* Code that runs before libc has set up the environment (a .preinit_array
 * function, a constructor of a library loaded before this one) can start
 * the runtime while environ is still empty: every setting would be
 * missed.  environ then points at the environment where the kernel put it,
 * on the process's first stack (fnt_initial_stack; libc sets environ to that
 * very array later).  Failing that (another libc or loader), at a copy of
 * /proc/self/environ, if /proc is mounted, until libc sets it up for real
 * (it overwrites the pointer, never the strings). */
#define EARLY_ENV_BYTES (128 * 1024)
#define EARLY_ENV_VARS 4096
static char early_buf[EARLY_ENV_BYTES];
static char *early_env[EARLY_ENV_VARS];

void fnt_environ_early(void)
{
	ssize_t n = 0, r;
	size_t k = 0;
	char **argv, **env;
	int fd;

	if (environ && *environ)
		return;
	if (!fnt_initial_stack(&argv, &env) && *env) {
		environ = env;
		return;
	}
	fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	while (n < (ssize_t)sizeof(early_buf) - 1 &&
	       (r = read(fd, early_buf + n, sizeof(early_buf) - 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	early_buf[n] = 0;
	for (ssize_t i = 0; i < n && k < EARLY_ENV_VARS - 1; i += (ssize_t)strlen(early_buf + i) + 1)
		early_env[k++] = early_buf + i;
	early_env[k] = NULL;
	if (k)
		environ = early_env;
}

/* the rest is not in the static archive (see the Makefile): a static
 * program's exec calls are libc's own */
#ifndef FNT_STATIC_ARCHIVE

static size_t key_len(const char *kv)
{
	const char *eq = strchr(kv, '=');
	return eq ? (size_t)(eq - kv) : strlen(kv);
}

static char *env_find(char *const *envp, const char *kv)
{
	size_t k = key_len(kv);
	for (; *envp; envp++)
		if (!strncmp(*envp, kv, k) && (*envp)[k] == '=')
			return *envp;
	return NULL;
}

/* Fill out[] (room for n + MAX_SAVED + 1) with envp plus what tracing needs;
 * preload: room for "LD_PRELOAD=" + our_lib + ":" + the program's value. */
static void env_fix(char *const *envp, char **out, char *preload, size_t preload_size)
{
	size_t n = 0;
	for (char *const *e = envp; *e; e++) {
		if (our_lib && !strncmp(*e, "LD_PRELOAD=", 11) && !strstr(*e + 11, our_lib)) {
			size_t a = strlen(our_lib), b = strlen(*e + 11);
			if (11 + a + 1 + b + 1 <= preload_size) {
				memcpy(preload, "LD_PRELOAD=", 11);
				memcpy(preload + 11, our_lib, a);
				preload[11 + a] = ':';
				memcpy(preload + 12 + a, *e + 11, b + 1);
				out[n++] = preload;
				continue;
			}
		}
		out[n++] = *e;
	}
	for (int i = 0; i < n_saved; i++)
		if (!env_find(envp, saved[i]))
			out[n++] = saved[i];
	out[n] = NULL;
}

static size_t env_count(char *const *envp)
{
	size_t n = 0;
	while (envp[n])
		n++;
	return n;
}

static size_t env_preload_size(char *const *envp)
{
	char *p = env_find(envp, "LD_PRELOAD=");
	return our_lib && p ? strlen(p) + strlen(our_lib) + 2 : 1;
}

/* The child environment, on the stack when small: the macro declares the
 * arrays in the caller's frame (exec may run in a vfork child: no malloc). */
#define ENV_SMALL 512
struct env_big {
	void *map;
	size_t size;
};

static char **env_big_alloc(struct env_big *b, char *const *envp, char **preload, size_t *psize)
{
	size_t n = env_count(envp);
	*psize = env_preload_size(envp);
	b->size = (n + MAX_SAVED + 1) * sizeof(char *) + *psize;
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->map == MAP_FAILED)
		return NULL;
	*preload = (char *)b->map + (n + MAX_SAVED + 1) * sizeof(char *);
	return b->map;
}

/* ---- what cannot be traced ---- */

/* The reason a program would run in secure-execution mode, or 0. */
static uint32_t secure_reason(const char *path, int fd)
{
	struct stat st;
	if (fd >= 0 ? fstat(fd, &st) : stat(path, &st))
		return 0;
	if (!S_ISREG(st.st_mode))
		return 0;
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid()))
		return FNT_UNTRACED_SETID;
	if ((fd >= 0 ? fgetxattr(fd, "security.capability", NULL, 0) : getxattr(path, "security.capability", NULL, 0)) > 0)
		return FNT_UNTRACED_CAPS;
	return 0;
}

static void note_untraced(uint32_t pid, uint32_t reason, const char *path)
{
	struct fnt_meta_untraced rec = { fnt_now(), pid, reason };
	struct fnt_thread *t = &fnt_self;
	if (!fnt_trace_header() || t->busy)
		return;
	t->busy = 1;
	fnt_meta_append(FNT_META_UNTRACED, &rec, sizeof(rec), path, strlen(path) + 1);
	t->busy = 0;
}

/* A file name searched in PATH as execvp would (the first executable one). */
static const char *path_search(const char *file, char *buf, size_t size)
{
	const char *p = getenv("PATH");
	if (strchr(file, '/'))
		return file;
	if (!p)
		p = "/bin:/usr/bin";
	while (*p) {
		const char *c = strchr(p, ':');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l + strlen(file) + 2 <= size) {
			memcpy(buf, l ? p : ".", l ? l : 1);
			buf[l ? l : 1] = '/';
			strcpy(buf + (l ? l : 1) + 1, file);
			if (!access(buf, X_OK))
				return buf;
		}
		if (!c)
			break;
		p = c + 1;
	}
	return file;
}

/* fork: a child that can no longer create its trace file (the process
 * changed its user since the directory was made) is noted by the parent. */
static void note_fork(pid_t pid)
{
	if (pid > 0 && fnt_trace_header() && faccessat(AT_FDCWD, trace_dir_copy, W_OK | X_OK, AT_EACCESS))
		note_untraced((uint32_t)pid, FNT_UNTRACED_NO_FILE, trace_dir_copy);
}

/* ---- the wrappers ---- */

static void *real_fn(void **slot, const char *name)
{
	void *f = __atomic_load_n(slot, __ATOMIC_RELAXED);
	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, f, __ATOMIC_RELAXED);
	}
	return f;
}

/* run `call` with envp fixed (FIXED_ENV is the fixed array) */
#define WITH_FIXED_ENV(envp, call)                                                     \
	do {                                                                            \
		size_t n_ = (envp) ? env_count(envp) : 0, psize_;                        \
		if (!(envp) || !n_saved) {                                              \
			char *const *FIXED_ENV = (envp);                                \
			call;                                                           \
		} else if (n_ <= ENV_SMALL && (psize_ = env_preload_size(envp)) <= 8192) { \
			char *arr_[ENV_SMALL + MAX_SAVED + 1], pre_[8192];              \
			env_fix(envp, arr_, pre_, psize_);                              \
			char *const *FIXED_ENV = arr_;                                  \
			call;                                                           \
		} else {                                                                \
			struct env_big b_;                                              \
			char *pre_;                                                     \
			char **arr_ = env_big_alloc(&b_, envp, &pre_, &psize_);         \
			char *const *FIXED_ENV = arr_ ? arr_ : (envp);                  \
			if (arr_)                                                       \
				env_fix(envp, arr_, pre_, psize_);                      \
			call;                                                           \
			if (arr_)                                                       \
				munmap(b_.map, b_.size);                                \
		}                                                                       \
	} while (0)

typedef int exec_fn(const char *, char *const[], char *const[]);

/* execve and execvpe (search: file is looked up in PATH) */
static int exec(exec_fn *f, int search, const char *file, char *const argv[], char *const envp[])
{
	char buf[4096];
	uint32_t why = secure_reason(search ? path_search(file, buf, sizeof(buf)) : file, -1);
	int r = -1;
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	if (why)
		note_untraced(0, why, file);
	WITH_FIXED_ENV(envp, r = f(file, argv, FIXED_ENV));
	return r;
}

FNT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	static void *real;
	return exec(real_fn(&real, "execve"), 0, path, argv, envp);
}

FNT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	static void *real;
	return exec(real_fn(&real, "execvpe"), 1, file, argv, envp);
}

FNT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	static void *real;
	int (*f)(int, char *const[], char *const[]) = real_fn(&real, "fexecve");
	uint32_t why = secure_reason(NULL, fd);
	int r = -1;
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	if (why)
		note_untraced(0, why, "(fexecve)");
	WITH_FIXED_ENV(envp, r = f(fd, argv, FIXED_ENV));
	return r;
}

/* execle(path, arg0, ..., NULL, envp): the same as execve */
FNT_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	size_t n = 1;
	va_start(ap, arg);
	while (va_arg(ap, const char *))
		n++;
	va_end(ap);
	if (n > 65536) {
		errno = E2BIG;
		return -1;
	}
	const char *argv[n + 1];
	char *const *envp;
	argv[0] = arg;
	va_start(ap, arg);
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, const char *);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, (char *const *)argv, envp);
}

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
		     char *const[], char *const[]);

/* posix_spawn and posix_spawnp (search: file is looked up in PATH) */
static int spawn(spawn_fn *f, int search, pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	pid_t child = 0;
	int r = ENOSYS;
	char buf[4096];
	if (!f)
		return r;
	WITH_FIXED_ENV(envp, r = f(&child, file, fa, attr, argv, FIXED_ENV));
	if (!r) {
		uint32_t why = secure_reason(search ? path_search(file, buf, sizeof(buf)) : file, -1);
		if (why)
			note_untraced((uint32_t)child, why, file);
		if (pid)
			*pid = child;
	}
	return r;
}

FNT_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static void *real;
	return spawn(real_fn(&real, "posix_spawn"), 0, pid, path, fa, attr, argv, envp);
}

FNT_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static void *real;
	return spawn(real_fn(&real, "posix_spawnp"), 1, pid, file, fa, attr, argv, envp);
}

FNT_EXPORT pid_t fork(void)
{
	static void *real;
	pid_t (*f)(void) = real_fn(&real, "fork");
	pid_t r;
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	r = f();
	note_fork(r);
	return r;
}
#endif
