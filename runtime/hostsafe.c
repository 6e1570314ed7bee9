/*
 * hostsafe.c - the small checks that keep the runtime's own resources out of
 * the host program's way (doc/safety.md lists the guarantees and their tests):
 *
 *  - descriptors: every fd the runtime keeps is moved to a number >= 800, so
 *    a daemon that closes everything and opens /dev/null expecting fd 0 gets
 *    fd 0, on the first open of the trace file and on every reopen;
 *  - RLIMIT_FSIZE: the file is never grown past the program's limit (the
 *    kernel would send SIGXFSZ, which kills by default); past it the events
 *    are counted as lost for lack of space; under a small limit the default
 *    chunks are smaller, so that the first events fit;
 *  - files the runtime reads (FNTRACE_ARGS_FILE): opened without blocking,
 *    regular files only;
 *  - secure execution (setuid/setgid, file capabilities): the environment is
 *    the caller's, not the program's owner's, so nothing is recorded;
 *  - the signals the runtime handles itself, which a thread in seccomp
 *    strict mode must not take (clock.c);
 *  - start-up without /proc (a chroot, a sandbox, a mount namespace): the
 *    program's arguments and environment are read where the kernel put
 *    them, on its first stack, and its path from the auxiliary vector.
 *
 * None of this is on the hot path: it runs at start-up and when a chunk is
 * allocated.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "runtime/runtime.h"

int fnt_fd_high(int fd)
{
	struct rlimit rl;
	int high;

	if (fd < 0 || fd >= FNT_FD_MIN)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, FNT_FD_MIN);
	if (high < 0 && errno == EINVAL && !getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur > 64)
		high = fcntl(fd, F_DUPFD_CLOEXEC, (int)(rl.rlim_cur - 16));   /* a low RLIMIT_NOFILE: its top */
	if (high < 0) {
		/* no number that high (RLIMIT_NOFILE, 64 or less): never keep
		 * a low one, which the program may believe is free */
		close(fd);
		errno = EMFILE;
		return -1;
	}
	close(fd);
	return high;
}

/* fstat into a buffer of the thread's own rather than the stack: the
 * chunk path checks its descriptor with it, in signal handlers on small
 * stacks too (doc/safety.md, the hooks' stack use).  A handler that
 * interrupts it and calls it again reuses the buffer: the interrupted
 * check then sees another file's identity and reopens by path, which is
 * safe.  NULL if fstat failed. */
const struct stat *fnt_fstat(int fd)
{
	static __thread struct stat st __attribute__((tls_model("initial-exec")));
	if (fnt_fstat_denied()) {
		errno = EPERM;          /* a seccomp filter's (sandbox.c) */
		return NULL;
	}
	return fstat(fd, &st) ? NULL : &st;
}

int fnt_fsize_allows(off_t end)
{
	struct rlimit rl;

	/* (the system call itself: libc's getrlimit is a few frames deeper, on
	 * the chunk path that may run in a signal handler) */
	if (fnt_sys3(SYS_getrlimit, RLIMIT_FSIZE, (long)&rl, 0) || rl.rlim_cur == RLIM_INFINITY ||
	    (rlim_t)end <= rl.rlim_cur)
		return 1;
	errno = EFBIG;
	return 0;
}

/* The default chunk size under a small RLIMIT_FSIZE: a file of 4 KiB of
 * header and 256 KiB chunks would hold nothing under `ulimit -f 512` (a meta
 * chunk and one event chunk already pass 512 KiB).  Chunks of an eighth of
 * the limit (16 KiB at least) let the first events in. */
uint32_t fnt_fsize_chunk(uint32_t size)
{
	struct rlimit rl;
	rlim_t fit;

	if (fnt_sys3(SYS_getrlimit, RLIMIT_FSIZE, (long)&rl, 0) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur < FNT_HEADER_SIZE)
		return size;
	fit = (rl.rlim_cur - FNT_HEADER_SIZE) / 8 & ~(rlim_t)4095;
	if (fit < FNT_MIN_CHUNK)
		fit = FNT_MIN_CHUNK;
	return fit < size ? (uint32_t)fit : size;
}

/* (set at start-up, before any thread can enter strict mode) */
static sigset_t own_signals;

void fnt_own_signal(int sig)
{
	sigaddset(&own_signals, sig);
}

void fnt_own_signals_block(sigset_t *was)
{
	pthread_sigmask(SIG_BLOCK, &own_signals, was);
}

/* Block the asynchronous signals around work that a signal handler must
 * not land in the middle of and leave by a siglongjmp: the switch to a new
 * chunk, which a jump out of left with no chunk (the jump's UNWIND was
 * never written) and a half-made one in the file.  The signals a fault
 * raises stay open (the kernel kills a process whose fault signal is
 * blocked).  By the instruction (fnt_sys6), as it runs with the guard
 * held; 0 when nothing was blocked (a seccomp filter forbids it). */
int fnt_async_block(uint64_t *was)
{
	static const int sync[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGKILL, SIGSTOP };
	uint64_t set = ~0ull;
	for (size_t i = 0; i < sizeof(sync) / sizeof(sync[0]); i++)
		set &= ~(1ull << (sync[i] - 1));
	return fnt_sys6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&set, (long)was, 8, 0, 0) == 0;
}

void fnt_async_unblock(const uint64_t *was)
{
	fnt_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)was, 0, 8, 0, 0);
}

/* No thread cancellation in the runtime's work: the state disabled (the
 * type stays: with it deferred, a cancellation point in that work waited
 * for good for a SIGCANCEL that the caller had blocked).  The state is
 * put back with the type deferred, and then the type: an asynchronous
 * cancel that came meanwhile is taken there, as glibc takes it when the
 * type becomes asynchronous.  Putting the state back with the type
 * asynchronous made glibc 2.36 end the thread with the result NULL, so
 * pthread_join saw no PTHREAD_CANCELED (found by an adversarial review: 1
 * thread of 1,200 cancelled that way).  (Not from a context that shares
 * the thread's TLS, a raw CLONE_VM child: its state is the thread's,
 * whose own pair would interleave with it.) */
int fnt_cancel_off(int *was)
{
	return !fnt_self.tls_shared && !pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, was);
}

/* with the state off: is the thread's cancellation type asynchronous? */
int fnt_cancel_async(void)
{
	int type = PTHREAD_CANCEL_DEFERRED;
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &type);
	if (type == PTHREAD_CANCEL_ASYNCHRONOUS)
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	return type == PTHREAD_CANCEL_ASYNCHRONOUS;
}

void fnt_cancel_back(int was)
{
	int type = PTHREAD_CANCEL_DEFERRED;
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &type);
	pthread_setcancelstate(was, NULL);
	if (type == PTHREAD_CANCEL_ASYNCHRONOUS)
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
}

int fnt_open_knob_file(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

int fnt_secure_exec(void)
{
#ifdef FNT_TRACE_SECURE_EXEC
	return 0;
#else
	return getauxval(AT_SECURE) != 0;
#endif
}

/* The kernel lays the process's first stack out as argc, argv[] and its
 * NULL, envp[] and its NULL, the auxiliary vector, then (higher, in the
 * same mapping) the AT_RANDOM bytes and the strings.  ld.so leaves a
 * pointer to argc, __libc_stack_end (also when `ld.so PROG` moved the
 * arguments).  The layout is trusted only if the auxiliary vector found
 * after envp is the one getauxval() reads (its AT_RANDOM entry holds the
 * same pointer), and nothing is read at or above the AT_RANDOM bytes. */
extern void *__libc_stack_end __attribute__((weak));

int fnt_initial_stack(char ***argv, char ***envp)
{
	const char *top = (const char *)getauxval(AT_RANDOM);
	const long *sp = &__libc_stack_end ? __libc_stack_end : NULL;
	const unsigned long *aux;
	char **av, **e;

	if (!sp || !top || (const char *)sp >= top || top - (const char *)sp > (256l << 20) || sp[0] < 0 ||
	    sp[0] > (top - (const char *)sp) / 8)
		return -1;
	av = (char **)(sp + 1);
	if ((const char *)(av + sp[0] + 1) > top || av[sp[0]])
		return -1;
	for (e = av + sp[0] + 1; (const char *)(e + 1) <= top && *e; e++)
		;
	if ((const char *)(e + 1) > top)
		return -1;
	for (aux = (const unsigned long *)(e + 1); (const char *)(aux + 2) <= top && aux[0] != AT_NULL; aux += 2)
		if (aux[0] == AT_RANDOM) {
			if (aux[1] != (unsigned long)top)
				return -1;
			*argv = av;
			*envp = av + sp[0] + 1;
			return 0;
		}
	return -1;
}

void fnt_self_exe(char *buf, size_t size)
{
	ssize_t l = readlink("/proc/self/exe", buf, size - 1);
	const char *execfn;
	char *real;

	if (l > 0) {
		buf[l] = 0;
		return;
	}
	/* the path execve was given, resolved now (before main, the working
	 * directory is still the one it was given in) */
	execfn = (const char *)getauxval(AT_EXECFN);
	real = execfn ? realpath(execfn, NULL) : NULL;
	buf[0] = 0;
	if (real && strlen(real) < size)
		strcpy(buf, real);
	free(real);
}

void fnt_lost_events(struct fnt_thread *t, enum fnt_lost_kind kind, uint64_t n)
{
	struct fnt_file_header *h = fnt_trace_header();

	if (t->tls_shared) {            /* the guard is held for a vfork or clone child */
		kind = FNT_LOST_UNSAFE;
		fnt_tls_check(t);
	}
	t->lost += n;
	if (!h)
		return;
	__atomic_fetch_add(kind == FNT_LOST_REENTRANT ? &h->lost_reentrant :
			   kind == FNT_LOST_NOSPACE ? &h->lost_nospace :
			   &h->reserved[kind == FNT_LOST_SHADOW ? FNT_RES_LOST_SHADOW :
					kind == FNT_LOST_STACKS ? FNT_RES_LOST_STACKS :
					kind == FNT_LOST_ADDR ? FNT_RES_LOST_ADDR :
					kind == FNT_LOST_NOCLOCK ? FNT_RES_LOST_NOCLOCK : FNT_RES_LOST_UNSAFE],
			   n, __ATOMIC_RELAXED);
}
