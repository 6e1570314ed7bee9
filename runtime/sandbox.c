/*
 * sandbox.c - the system calls a seccomp filter of the program forbids.
 *
 * A program may sandbox itself: prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)
 * or seccomp(SECCOMP_SET_MODE_FILTER) with a classic BPF program that
 * kills it (or traps, or fails the call) for any system call not on its
 * list, as OpenSSH's pre-authentication child, browsers' renderers and
 * systemd's SystemCallFilter= do.  The runtime makes a few system calls of
 * its own after such a point: gettid after a pause (a raw clone's child on
 * the thread's TLS), the thread's name, the trace file's checks and growth,
 * record's state at exit.  Each of those the filter does not allow would
 * kill the program, or run its SIGSYS handler for a call it never made.
 *
 * So the runtime's wrappers of prctl and syscall() hand every filter the
 * program installs to fnt_sandbox_filter() before it takes effect, which
 * runs it, as the kernel would, on each of those calls, and marks the ones
 * it does not allow.  The runtime then does without them (fnt_denied),
 * taking the path it takes when such a call fails (what it cannot record
 * it counts); the thread id comes from libc's thread descriptor.  Filters
 * add up (the kernel runs every one), and one installed by a single thread
 * counts for the whole process.  A filter that the runtime cannot run (an
 * instruction it does not know, a jump out of the program) forbids every
 * call of the list; one the kernel refuses (NULL, unreadable, no
 * NO_NEW_PRIVS) forbids nothing.  Not seen: filters installed before the
 * runtime was loaded (inherited across exec), or by a syscall instruction
 * of the program's own.  doc/safety.md has each call and its cost.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include "runtime/runtime.h"

uint64_t fnt_denied_mask[FNT_DENIED_WORDS];

/* The runtime's own system calls after start, with the arguments it
 * passes where a filter may look at them: `known` has bit i when args[i]
 * is the value given here; a filter that reads any other word (a
 * descriptor, an address, a size that varies, the instruction pointer)
 * forbids the call, as it might for the real value. */
static const struct {
	int nr;
	uint8_t known;
	uint64_t arg[6];
} calls[] = {
	{ SYS_gettid, 0x3f, { 0 } },
	{ SYS_getpid, 0x3f, { 0 } },
	{ SYS_getppid, 0x3f, { 0 } },
	{ SYS_geteuid, 0x3f, { 0 } },
	{ SYS_prctl, 0x01, { PR_GET_NAME } },
	{ SYS_fstat, 0x00, { 0 } },
	{ SYS_newfstatat, 0x08, { 0, 0, 0, AT_EMPTY_PATH } },
	{ SYS_newfstatat, 0x09, { AT_FDCWD, 0, 0, 0 } },
	{ SYS_newfstatat, 0x08, { 0, 0, 0, 0 } },
	{ SYS_getrlimit, 0x01, { RLIMIT_FSIZE } },
	{ SYS_getrlimit, 0x01, { RLIMIT_NOFILE } },
	{ SYS_prlimit64, 0x07, { 0, RLIMIT_FSIZE } },
	{ SYS_prlimit64, 0x07, { 0, RLIMIT_NOFILE } },
	{ SYS_fallocate, 0x02, { 0 } },
	{ SYS_fallocate, 0x02, { 0, FALLOC_FL_KEEP_SIZE } },
	{ SYS_fallocate, 0x02, { 0, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE } },
	{ SYS_pwrite64, 0x00, { 0 } },
	{ SYS_kill, 0x02, { 0 } },
	{ SYS_pidfd_open, 0x02, { 0 } },
	{ SYS_process_vm_readv, 0x20, { 0 } },
	{ SYS_madvise, 0x04, { 0, 0, 23 /* MADV_POPULATE_WRITE */ } },
	{ SYS_madvise, 0x04, { 0, 0, 18 /* MADV_WIPEONFORK */ } },
	{ SYS_clock_nanosleep, 0x0b, { CLOCK_REALTIME } },
	{ SYS_clock_gettime, 0x01, { CLOCK_MONOTONIC } },
	{ SYS_nanosleep, 0x02, { 0 } },
	{ SYS_sched_yield, 0x3f, { 0 } },
	{ SYS_sigaltstack, 0x00, { 0 } },
	{ SYS_unlink, 0x00, { 0 } },
	/* a trace file made (a forked child's: tracefile.c, file_open) or
	 * opened again (trace_fd_check) */
	{ SYS_mkdir, 0x00, { 0 } },
	{ SYS_openat, 0x05, { AT_FDCWD, 0, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC } },
	{ SYS_openat, 0x05, { AT_FDCWD, 0, O_RDWR | O_NOFOLLOW | O_CLOEXEC } },
	{ SYS_openat, 0x05, { AT_FDCWD, 0, O_RDONLY | O_CLOEXEC } },
	{ SYS_read, 0x00, { 0 } },
	{ SYS_pread64, 0x00, { 0 } },
	{ SYS_open, 0x02, { 0, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK } },
	{ SYS_openat, 0x05, { AT_FDCWD, 0, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK } },
	/* a snapshot (ring.c) */
	{ SYS_openat, 0x05, { AT_FDCWD, 0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC } },
	{ SYS_openat, 0x04, { 0, 0, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC } },
	{ SYS_unlinkat, 0x04, { 0, 0, 0 } },
	{ SYS_readlink, 0x00, { 0 } },
	{ SYS_fchmod, 0x00, { 0 } },
	{ SYS_fcntl, 0x02, { 0, F_DUPFD_CLOEXEC } },
	{ SYS_ftruncate, 0x00, { 0 } },
	{ SYS_mmap, 0x00, { 0 } },
	{ SYS_munmap, 0x00, { 0 } },
	{ SYS_close, 0x00, { 0 } },
	/* the parent's check that the child can make its file (exec.c) */
	{ SYS_faccessat, 0x05, { AT_FDCWD, 0, W_OK | X_OK } },
	{ SYS_faccessat2, 0x0d, { AT_FDCWD, 0, W_OK | X_OK, AT_EACCESS } },
};

static int any_denied(const int *nrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fnt_denied(nrs[i]))
			return 1;
	return 0;
}

/* a snapshot's calls (ring.c) */
int fnt_snapshot_calls_denied(void)
{
	static const int nrs[] = { SYS_mkdir, SYS_openat, SYS_unlinkat, SYS_pread64, SYS_pwrite64, SYS_ftruncate,
				   SYS_fchmod, SYS_newfstatat, SYS_fstat, SYS_close, SYS_geteuid, SYS_fcntl,
				   SYS_mmap, SYS_munmap };
	return any_denied(nrs, sizeof(nrs) / sizeof(nrs[0]));
}

/* the checks of a program about to be started (exec.c, file_reason) */
int fnt_exec_calls_denied(void)
{
	static const int nrs[] = { SYS_newfstatat, SYS_fstat, SYS_openat, SYS_pread64, SYS_close };
	return any_denied(nrs, sizeof(nrs) / sizeof(nrs[0]));
}

/* a call that making a trace file takes is forbidden */
int fnt_file_calls_denied(void)
{
	static const int nrs[] = { SYS_mkdir, SYS_newfstatat, SYS_fstat, SYS_geteuid, SYS_openat, SYS_fchmod,
				   SYS_fcntl, SYS_ftruncate, SYS_mmap, SYS_munmap, SYS_close, SYS_fallocate,
				   SYS_pwrite64, SYS_getpid, SYS_getppid, SYS_readlink, SYS_read };
	return any_denied(nrs, sizeof(nrs) / sizeof(nrs[0]));
}

/* What a seccomp classic BPF program returns for the call d, as the
 * kernel's interpreter computes it (the kernel has checked the program
 * when it accepts it); 0 (kill) for anything this does not know. */
static uint32_t run(const struct sock_filter *f, unsigned n, const struct seccomp_data *d, unsigned known)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
	for (unsigned pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		uint32_t k = i->k, src = BPF_SRC(i->code) == BPF_X ? x : k;
		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (i->code == (BPF_LD | BPF_W | BPF_ABS) && k % 4 == 0 && k <= sizeof(*d) - 4) {
				/* a word the call's real value may differ in */
				if (k >= offsetof(struct seccomp_data, instruction_pointer) &&
				    (k < offsetof(struct seccomp_data, args) ||
				     !(known >> ((k - offsetof(struct seccomp_data, args)) / 8) & 1)))
					return 0;
				memcpy(&a, (const char *)d + k, 4);
			}
			else if (i->code == (BPF_LD | BPF_W | BPF_LEN))
				a = sizeof(*d);
			else if (i->code == (BPF_LD | BPF_IMM))
				a = k;
			else if (i->code == (BPF_LD | BPF_MEM) && k < BPF_MEMWORDS)
				a = mem[k];
			else
				return 0;
			break;
		case BPF_LDX:
			if (i->code == (BPF_LDX | BPF_W | BPF_LEN))
				x = sizeof(*d);
			else if (i->code == (BPF_LDX | BPF_IMM))
				x = k;
			else if (i->code == (BPF_LDX | BPF_MEM) && k < BPF_MEMWORDS)
				x = mem[k];
			else
				return 0;
			break;
		case BPF_ST:
		case BPF_STX:
			if (k >= BPF_MEMWORDS)
				return 0;
			mem[k] = BPF_CLASS(i->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			switch (BPF_OP(i->code)) {
			case BPF_ADD: a += src; break;
			case BPF_SUB: a -= src; break;
			case BPF_MUL: a *= src; break;
			case BPF_DIV: if (!src) return 0; a /= src; break;
			case BPF_MOD: if (!src) return 0; a %= src; break;
			case BPF_OR: a |= src; break;
			case BPF_AND: a &= src; break;
			case BPF_XOR: a ^= src; break;
			case BPF_LSH: a <<= src & 31; break;    /* (the kernel's) */
			case BPF_RSH: a >>= src & 31; break;
			case BPF_NEG: a = 0 - a; break;
			default: return 0;
			}
			break;
		case BPF_JMP: {
			unsigned to;
			if (BPF_OP(i->code) == BPF_JA) {
				to = k;
			} else {
				int t;
				switch (BPF_OP(i->code)) {
				case BPF_JEQ: t = a == src; break;
				case BPF_JGT: t = a > src; break;
				case BPF_JGE: t = a >= src; break;
				case BPF_JSET: t = (a & src) != 0; break;
				default: return 0;
				}
				to = t ? i->jt : i->jf;
			}
			if (to >= n - pc - 1)
				return 0;       /* out of the program (the kernel refuses it) */
			pc += to;
			break;
		}
		case BPF_RET:
			if (BPF_RVAL(i->code) == BPF_K)
				return k;
			if (BPF_RVAL(i->code) == BPF_A)
				return a;
			return 0;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		default:
			return 0;
		}
	}
	return 0;
}

/* One install at a time: the thread that holds `busy` from its
 * fnt_sandbox_filter to its fnt_sandbox_done marks what its filter
 * forbids, and takes the marks back (to `before`) if the kernel refuses
 * the filter.  A thread that finds `busy` held (another thread's install,
 * or a signal handler's inside this one) cannot read its filter: it
 * forbids every call of the list for good (`sticky`, which no take-back
 * clears). */
static int busy;
static uint64_t sticky[FNT_DENIED_WORDS];
static __thread uint64_t before[FNT_DENIED_WORDS] __attribute__((tls_model("initial-exec")));
static __thread int holding __attribute__((tls_model("initial-exec")));

static void deny(int nr, int for_good)
{
	if (nr < 0 || nr >= 64 * FNT_DENIED_WORDS)
		return;
	if (for_good)   /* (sticky first: a take-back reads it after the mask) */
		__atomic_fetch_or(&sticky[nr / 64], 1ull << (nr % 64), __ATOMIC_SEQ_CST);
	__atomic_fetch_or(&fnt_denied_mask[nr / 64], 1ull << (nr % 64), __ATOMIC_SEQ_CST);
}

/* the filter prog (a struct sock_fprog) is about to be installed */
void fnt_sandbox_filter(const void *prog)
{
	/* the copy: 32 KiB at most, not on the caller's stack (a thread's
	 * may be small) */
	static struct sock_filter f[BPF_MAXINSNS];
	const struct sock_fprog *p = prog;
	struct sock_fprog copy = { 0, NULL };

	/* a program the kernel refuses without installing it, and so will
	 * this, as it cannot read it either (EFAULT, EINVAL): systemd and
	 * Chromium ask whether seccomp is there with a NULL one */
	if (!p)
		return;
	long r = fnt_read_self(&copy, p, sizeof(copy));
	if ((r >= 0 && r < (long)sizeof(copy)) || r == -EFAULT ||
	    (r == (long)sizeof(copy) && (!copy.len || copy.len > BPF_MAXINSNS)))
		return;
	if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE)) {
		for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++)
			deny(calls[c].nr, 1);
		return;
	}
	holding = 1;
	for (int w = 0; w < FNT_DENIED_WORDS; w++)
		before[w] = __atomic_load_n(&fnt_denied_mask[w], __ATOMIC_SEQ_CST);
	int ok = 0;
	if (r == (long)sizeof(copy)) {
		size_t n = copy.len * sizeof(f[0]);
		r = fnt_read_self(f, copy.filter, n);
		if ((r >= 0 && r < (long)n) || r == -EFAULT) {
			holding = 0;
			__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
			return;
		}
		ok = r == (long)n;
	}
	/* (a read that cannot be made, process_vm_readv forbidden by an
	 * earlier filter: every call of the list forbidden) */
	for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
		struct seccomp_data d = { .nr = calls[c].nr, .arch = AUDIT_ARCH_X86_64 };
		memcpy(d.args, calls[c].arg, sizeof(d.args));
		uint32_t act = ok ? run(f, copy.len, &d, calls[c].known) & SECCOMP_RET_ACTION_FULL : 0;
		if (act != SECCOMP_RET_ALLOW && act != SECCOMP_RET_LOG)
			deny(calls[c].nr, 0);
	}
}

/* ...and the kernel's answer: a filter it refused (no NO_NEW_PRIVS, a bad
 * program) forbids nothing (a call of the list some other thread saw
 * forbidden meanwhile was only not made) */
void fnt_sandbox_done(int installed)
{
	if (!holding)
		return;
	holding = 0;
	for (int w = 0; !installed && w < FNT_DENIED_WORDS; w++) {
		uint64_t old = __atomic_load_n(&fnt_denied_mask[w], __ATOMIC_SEQ_CST), want;
		do
			want = before[w] | __atomic_load_n(&sticky[w], __ATOMIC_SEQ_CST);
		while (!__atomic_compare_exchange_n(&fnt_denied_mask[w], &old, want, 0, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST));
	}
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
}

/* whether seccomp(SECCOMP_SET_MODE_FILTER, flags, ...) installed its
 * filter, from what it returned: 0, or with NEW_LISTENER the listener's
 * descriptor; with TSYNC (without TSYNC_ESRCH) a positive failure is the
 * thread that could not be synced */
int fnt_sandbox_seccomp_ok(unsigned long flags, long ret)
{
	if (ret < 0)
		return 0;
	if (ret > 0 && (flags & SECCOMP_FILTER_FLAG_TSYNC) && !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER))
		return 0;
	return 1;
}

/* the wrappers' view of prctl(option, arg, prog) and of
 * seccomp(op, flags, prog) (op < 0: not a seccomp call) */
void fnt_sandbox_prctl(int option, unsigned long arg, unsigned long prog)
{
	if (option == PR_SET_SECCOMP && arg == SECCOMP_MODE_FILTER)
		fnt_sandbox_filter((const void *)prog);
}

void fnt_sandbox_seccomp(unsigned long op, unsigned long prog)
{
	if (op == SECCOMP_SET_MODE_FILTER)
		fnt_sandbox_filter((const void *)prog);
}
