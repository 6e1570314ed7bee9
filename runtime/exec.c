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
 * The calls that pass the program's own environ (execv, execvp, execl,
 * execlp; system and popen, whose shell libc starts with its own
 * posix_spawn) are wrapped too: the program may have emptied environ
 * (clearenv), cut it (unsetenv, putenv) or replaced it.
 *
 * What cannot be traced is written down as an UNTRACED meta record by the
 * parent (or by the process that execs): an exec or spawn of a
 * setuid/setgid program or one with file capabilities (the kernel starts
 * it in secure-execution mode, where the loader ignores LD_PRELOAD), of a
 * statically linked program (no loader reads LD_PRELOAD) or one for
 * another machine (libfntrace.so cannot be loaded into it), and a child
 * forked after the process changed its user, which can no longer create
 * its trace file in the directory.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
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
#ifndef FNT_STATIC_ARCHIVE
static void exec_real_init(void);
#endif

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
#ifndef FNT_STATIC_ARCHIVE
	exec_real_init();
#endif
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

static dev_t loader_dev;            /* the dynamic loader, which honours LD_PRELOAD when run itself */
static ino_t loader_ino;

/* The reason a program would run in secure-execution mode, or 0: st is
 * the file's, fd open on it or -1, path its name (for dirfd) */
static uint32_t secure_reason(const struct stat *st, int dirfd, const char *path, int fd)
{
	if (((st->st_mode & S_ISUID) && st->st_uid != geteuid()) ||
	    ((st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) && st->st_gid != getegid()))
		return FNT_UNTRACED_SETID;
	if (fd >= 0 ? fgetxattr(fd, "security.capability", NULL, 0) > 0 :
	    (dirfd == AT_FDCWD || *path == '/') && getxattr(path, "security.capability", NULL, 0) > 0)
		return FNT_UNTRACED_CAPS;
	return 0;
}

static uint32_t file_reason(int dirfd, const char *path, int fd, int depth);

/* What the file's first bytes say: an ELF image for another machine, or
 * one without a loader (statically linked: nothing reads LD_PRELOAD, unless
 * it carries the runtime itself, linked with -lfntrace: its note, see
 * runtime.c); a script is its interpreter's case (one level). */
#define FNT_NOTE_NAME "fntrace"
static int has_runtime_note(int fd, const Elf64_Phdr *ph)
{
	unsigned char buf[4096];
	size_t n = ph->p_filesz < sizeof(buf) ? (size_t)ph->p_filesz : sizeof(buf);
	if (pread(fd, buf, n, (off_t)ph->p_offset) != (ssize_t)n)
		return 0;
	return fnt_runtime_note_in(buf, n);
}

/* the notes of a PT_NOTE segment, n bytes at buf: one says "fntrace" */
int fnt_runtime_note_in(const unsigned char *buf, size_t n)
{
	for (size_t at = 0; at + 12 <= n;) {
		uint32_t w[3];
		memcpy(w, buf + at, 12);
		size_t name = (w[0] + 3u) & ~3u, desc = (w[1] + 3u) & ~3u;
		if (w[0] == sizeof(FNT_NOTE_NAME) && at + 12 + w[0] <= n && !memcmp(buf + at + 12, FNT_NOTE_NAME, w[0]))
			return 1;
		if (name > n || desc > n)
			break;
		at += 12 + name + desc;
	}
	return 0;
}

static uint32_t image_reason(int fd, int depth)
{
	union {
		unsigned char b[256];
		Elf64_Ehdr eh;
	} u;
	struct stat st;
	ssize_t n = pread(fd, u.b, sizeof(u.b) - 1, 0);
	if (n >= 2 && u.b[0] == '#' && u.b[1] == '!') {
		/* #!interpreter [arg]: the kernel runs the interpreter */
		char *p = (char *)u.b + 2, *e;
		u.b[n] = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		for (e = p; *e && *e != ' ' && *e != '\t' && *e != '\n'; e++)
			;
		if (!*e && (size_t)n == sizeof(u.b) - 1)
			return 0;       /* (longer than we read) */
		*e = 0;
		return depth || !*p ? 0 : file_reason(AT_FDCWD, p, -1, depth + 1);
	}
	if (n < (ssize_t)sizeof(Elf64_Ehdr) || memcmp(u.b, ELFMAG, SELFMAG) ||
	    (u.eh.e_type != ET_EXEC && u.eh.e_type != ET_DYN))
		return 0;
	if (u.b[EI_CLASS] != ELFCLASS64 || u.eh.e_machine != EM_X86_64)
		return FNT_UNTRACED_ARCH;
	if (u.eh.e_phentsize != sizeof(Elf64_Phdr) || u.eh.e_phnum > 512)
		return 0;
	int note = 0;
	for (unsigned i = 0; i < u.eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(u.eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph))
			return 0;
		if (ph.p_type == PT_INTERP)
			return 0;
		if (ph.p_type == PT_NOTE && !note)
			note = has_runtime_note(fd, &ph);
	}
	if (note || (!fstat(fd, &st) && st.st_dev == loader_dev && st.st_ino == loader_ino))
		return 0;       /* traces itself; or the loader run by hand, which preloads */
	return FNT_UNTRACED_STATIC;
}

/* Why the program at dirfd/path (or open as fd) will not be traced, or 0.
 * Only a regular file is opened (never blocks: O_NONBLOCK). */
static uint32_t file_reason(int dirfd, const char *path, int fd, int depth)
{
	struct stat st;
	uint32_t why;
	int own = -1;
	if (fnt_exec_calls_denied())
		return 0;               /* (a seccomp filter forbids the checks: sandbox.c) */
	if (fd >= 0 ? fstat(fd, &st) : fstatat(dirfd, path, &st, 0))
		return 0;
	if (!S_ISREG(st.st_mode))
		return 0;
	if (fd < 0)
		fd = own = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	why = secure_reason(&st, dirfd, path, fd);
	if (!why && fd >= 0)
		why = image_reason(fd, depth);
	if (own >= 0)
		close(own);
	return why;
}

/* An UNTRACED record, in the file of the context that starts the program:
 * a vfork child's own, opened now if it has made no traced call yet. */
static void note_untraced(uint32_t pid, uint32_t reason, const char *path)
{
	struct fnt_meta_untraced rec = { fnt_now(), pid, reason };
	struct fnt_thread *t = &fnt_self;
	if (t->busy)
		return;
	t->busy = FNT_BUSY_RUNTIME;
	if (fnt_trace_header_open())
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

/* An exec of this process (pid 0) or a child started by a spawn: noted
 * when it will not be traced.  The program is dirfd/file (looked up in
 * PATH: search), or open as fd (file names it then).  errno is the
 * caller's again after (exec may run in a vfork child, which shares it
 * with its parent). */
static void note_start(uint32_t pid, int dirfd, const char *file, int fd, int search)
{
	char buf[4096];
	int e = errno;
	const char *path = search ? path_search(file, buf, sizeof(buf)) : file;
	uint32_t why = file_reason(dirfd, path, fd, 0);
	if (why)
		note_untraced(pid, why, path);
	errno = e;
}

/* fork: a child that can no longer create its trace file (the process
 * changed its user since the directory was made) is noted by the parent. */
static void note_fork(pid_t pid)
{
	int e = errno;
	if (pid <= 0 || !fnt_trace_header())
		return;
	/* nor one whose seccomp filter (its parent's) forbids a call that
	 * making the file takes (sandbox.c): the question is not asked then
	 * if the filter forbids it too */
	if (fnt_file_calls_denied())
		note_untraced((uint32_t)pid, FNT_UNTRACED_SANDBOX, trace_dir_copy);
	else if (fnt_trace_dir_elsewhere())
		note_untraced((uint32_t)pid, FNT_UNTRACED_ELSEWHERE, trace_dir_copy);
	else if (!fnt_denied(SYS_faccessat2) && !fnt_denied(SYS_faccessat) &&
		 faccessat(AT_FDCWD, trace_dir_copy, W_OK | X_OK, AT_EACCESS))
		note_untraced((uint32_t)pid, FNT_UNTRACED_NO_FILE, trace_dir_copy);
	errno = e;
}

/* ---- the wrappers ---- */

/* the real functions, looked up at start-up (fnt_exec_init): exec may run
 * in a vfork child, where dlsym (which may allocate) is not safe */
enum { R_EXECVE, R_EXECVPE, R_FEXECVE, R_EXECVEAT, R_SPAWN, R_SPAWNP, R_FORK, R_SYSTEM, R_POPEN, R_N };
static const char *const real_names[R_N] = { "execve", "execvpe", "fexecve", "execveat", "posix_spawn",
					     "posix_spawnp", "fork", "system", "popen" };
static void *real[R_N];

static void *real_fn(int which)
{
	void *f = __atomic_load_n(&real[which], __ATOMIC_RELAXED);
	if (!f) {
		f = dlsym(RTLD_NEXT, real_names[which]);
		__atomic_store_n(&real[which], f, __ATOMIC_RELAXED);
	}
	return f;
}

static void exec_real_init(void)
{
	Dl_info info;
	struct stat st;
	for (int i = 0; i < R_N; i++)
		real_fn(i);
	/* the loader: a program started as `ld.so prog` has no PT_INTERP */
	if (getauxval(AT_BASE) && dladdr((void *)getauxval(AT_BASE), &info) && info.dli_fname &&
	    !stat(info.dli_fname, &st)) {
		loader_dev = st.st_dev;
		loader_ino = st.st_ino;
	}
}

static char *const no_env[] = { NULL };

/* Does envp lack what tracing needs (a FNTRACE_* setting, or this library
 * in LD_PRELOAD)? */
static int env_lacks(char *const *envp)
{
	for (int i = 0; i < n_saved; i++) {
		char *e = env_find(envp, saved[i]);
		if (!e || (our_lib && !strncmp(e, "LD_PRELOAD=", 11) && !strstr(e + 11, our_lib)))
			return 1;
	}
	return 0;
}

/* run `call` with envp fixed (FIXED_ENV is the fixed array; NULL is an
 * empty environment, as for the kernel) */
#define WITH_FIXED_ENV(envp_in, call)                                                  \
	do {                                                                            \
		char *const *envp_ = (envp_in) ? (envp_in) : no_env;                     \
		size_t n_ = env_count(envp_), psize_;                                    \
		if (!n_saved || !env_lacks(envp_)) {                                    \
			char *const *FIXED_ENV = (envp_in);                             \
			call;                                                           \
		} else if (n_ <= ENV_SMALL && (psize_ = env_preload_size(envp_)) <= 8192) { \
			char *arr_[ENV_SMALL + MAX_SAVED + 1], pre_[8192];              \
			env_fix(envp_, arr_, pre_, psize_);                             \
			char *const *FIXED_ENV = arr_;                                  \
			call;                                                           \
		} else {                                                                \
			struct env_big b_;                                              \
			char *pre_;                                                     \
			char **arr_ = env_big_alloc(&b_, envp_, &pre_, &psize_);        \
			char *const *FIXED_ENV = arr_ ? arr_ : (envp_in);               \
			if (arr_)                                                       \
				env_fix(envp_, arr_, pre_, psize_);                     \
			call;                                                           \
			if (arr_)                                                       \
				munmap(b_.map, b_.size);                                \
		}                                                                       \
	} while (0)

typedef int exec_fn(const char *, char *const[], char *const[]);

/* execve and execvpe (search: file is looked up in PATH) */
static int exec(int which, int search, const char *file, char *const argv[], char *const envp[])
{
	exec_fn *f = real_fn(which);
	int r = -1;
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	note_start(0, AT_FDCWD, file, -1, search);
	WITH_FIXED_ENV(envp, fnt_exec_note(1); r = f(file, argv, FIXED_ENV); fnt_exec_note(0));
	return r;
}

FNT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return exec(R_EXECVE, 0, path, argv, envp);
}

FNT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return exec(R_EXECVPE, 1, file, argv, envp);
}

/* execv and execvp pass the program's environ, which it may have emptied
 * (clearenv), cut (unsetenv, putenv) or replaced: libc's own call execve
 * inside libc, past the wrappers above */
FNT_EXPORT int execv(const char *path, char *const argv[])
{
	return exec(R_EXECVE, 0, path, argv, environ);
}

FNT_EXPORT int execvp(const char *file, char *const argv[])
{
	return exec(R_EXECVPE, 1, file, argv, environ);
}

FNT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int (*f)(int, char *const[], char *const[]) = real_fn(R_FEXECVE);
	int r = -1;
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	note_start(0, AT_FDCWD, "(fexecve)", fd, 0);
	WITH_FIXED_ENV(envp, fnt_exec_note(1); r = f(fd, argv, FIXED_ENV); fnt_exec_note(0));
	return r;
}

FNT_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	int (*f)(int, const char *, char *const[], char *const[], int) = real_fn(R_EXECVEAT);
	int r = -1;
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	const char *p = path;
	__asm__("" : "+r"(p));          /* (declared nonnull; the kernel takes NULL) */
	if ((flags & AT_EMPTY_PATH) && p && !*p)
		note_start(0, AT_FDCWD, "(execveat)", dirfd, 0);
	else if (p)
		note_start(0, dirfd, p, -1, 0);
	WITH_FIXED_ENV(envp, fnt_exec_note(1); r = f(dirfd, path, argv, FIXED_ENV, flags); fnt_exec_note(0));
	return r;
}

/* execl, execlp, execle(path, arg0, ..., NULL[, envp]): argv from the
 * arguments, in the caller's frame (no malloc: a vfork child may call it).
 * arg0 may be NULL (declared nonnull, which the check must not trust). */
#define EXECL_ARGV(arg, argv, ap)                                                      \
	size_t n_##argv = 0;                                                            \
	const char *a0_##argv = (arg);                                                  \
	__asm__("" : "+r"(a0_##argv));                                                  \
	if (a0_##argv) {                                                                \
		va_list c_;                                                             \
		va_copy(c_, ap);                                                        \
		for (n_##argv = 1; va_arg(c_, const char *); n_##argv++)                \
			;                                                               \
		va_end(c_);                                                             \
	}                                                                               \
	if (n_##argv > 65536) {                                                         \
		va_end(ap);                                                             \
		errno = E2BIG;                                                          \
		return -1;                                                              \
	}                                                                               \
	const char *argv[n_##argv + 1];                                                 \
	argv[0] = a0_##argv;                                                            \
	for (size_t i_ = 1; i_ <= n_##argv; i_++)                                       \
		argv[i_] = va_arg(ap, const char *)

FNT_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	EXECL_ARGV(arg, argv, ap);
	va_end(ap);
	return exec(R_EXECVE, 0, path, (char *const *)argv, environ);
}

FNT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	EXECL_ARGV(arg, argv, ap);
	va_end(ap);
	return exec(R_EXECVPE, 1, file, (char *const *)argv, environ);
}

FNT_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char *const *envp;
	va_start(ap, arg);
	EXECL_ARGV(arg, argv, ap);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return exec(R_EXECVE, 0, path, (char *const *)argv, envp);
}

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
		     char *const[], char *const[]);

/* posix_spawn and posix_spawnp (search: file is looked up in PATH) */
static int spawn(int which, int search, pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	spawn_fn *f = real_fn(which);
	pid_t child = 0;
	int r = ENOSYS;
	if (!f)
		return r;
	WITH_FIXED_ENV(envp, r = f(&child, file, fa, attr, argv, FIXED_ENV));
	if (!r) {
		note_start((uint32_t)child, AT_FDCWD, file, -1, search);
		if (pid)
			*pid = child;
	}
	return r;
}

FNT_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(R_SPAWN, 0, pid, path, fa, attr, argv, envp);
}

FNT_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(R_SPAWNP, 1, pid, file, fa, attr, argv, envp);
}

/* system() and popen() start the shell with environ, through libc's own
 * posix_spawn, past the wrapper above: when the program has taken from
 * environ what tracing needs, environ is the fixed copy for the time of
 * the call (other threads reading the environment meanwhile see it too) */
#define WITH_FIXED_ENVIRON(call)                                                       \
	do {                                                                            \
		char **own_ = environ;                                                  \
		WITH_FIXED_ENV(own_, {                                                  \
			environ = (char **)FIXED_ENV;                                   \
			call;                                                           \
			if (environ == (char **)FIXED_ENV)                              \
				environ = own_;                                         \
		});                                                                     \
	} while (0)

FNT_EXPORT int system(const char *command)
{
	int (*f)(const char *) = real_fn(R_SYSTEM);
	int r = -1;
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	if (!command)
		return f(command);
	WITH_FIXED_ENVIRON(r = f(command));
	return r;
}

FNT_EXPORT FILE *popen(const char *command, const char *type)
{
	FILE *(*f)(const char *, const char *) = real_fn(R_POPEN);
	FILE *r = NULL;
	if (!f) {
		errno = ENOSYS;
		return NULL;
	}
	WITH_FIXED_ENVIRON(r = f(command, type));
	return r;
}

FNT_EXPORT pid_t fork(void)
{
	pid_t (*f)(void) = real_fn(R_FORK);
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
