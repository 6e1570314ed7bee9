/*
 * test-sandbox.c - the runtime's reading of a program's seccomp filter
 * (runtime/sandbox.c, built in here): which of the runtime's own system
 * calls each filter forbids, as the kernel would run it.
 */
#include "runtime/sandbox.c"
#include <stdio.h>
#include "tests/unit/check.h"

#define LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LD_ARG0 BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))
#define RET(x) BPF_STMT(BPF_RET | BPF_K, (x))
#define IF_NR(nr, x) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), RET(x)

/* the runtime's calls the filter forbids, after it alone was installed */
static void install(struct sock_filter *f, unsigned short n)
{
	struct sock_fprog p = { n, f };
	memset(fnt_denied_mask, 0, sizeof(fnt_denied_mask));
	fnt_sandbox_filter(&p);
	fnt_sandbox_done(1);
}

static int all_denied(void)
{
	for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++)
		if (!fnt_denied(calls[c].nr))
			return 0;
	return 1;
}

static int none_denied(void)
{
	for (size_t i = 0; i < FNT_DENIED_WORDS; i++)
		if (fnt_denied_mask[i])
			return 0;
	return 1;
}

#define INSTALL(...) do { struct sock_filter f_[] = { __VA_ARGS__ }; \
	install(f_, sizeof(f_) / sizeof(f_[0])); } while (0)

int main(void)
{
	/* a list of calls that kill; the rest allowed */
	INSTALL(LD_NR, IF_NR(SYS_pidfd_open, SECCOMP_RET_KILL_PROCESS), IF_NR(SYS_ptrace, SECCOMP_RET_KILL_PROCESS),
		RET(SECCOMP_RET_ALLOW));
	CHECK(fnt_denied(SYS_pidfd_open) && !fnt_denied(SYS_gettid) && !fnt_denied(SYS_kill) &&
	      !fnt_denied(SYS_ptrace), "deny list: pidfd_open only (ptrace is not the runtime's)");

	/* an allowlist: gettid and read, anything else kills */
	INSTALL(LD_NR, IF_NR(SYS_gettid, SECCOMP_RET_ALLOW), IF_NR(SYS_read, SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_KILL_THREAD));
	CHECK(!fnt_denied(SYS_gettid) && fnt_denied(SYS_prctl) && fnt_denied(SYS_fallocate) && fnt_denied(SYS_kill) &&
	      fnt_denied(SYS_openat), "allowlist: all but gettid");

	/* each action: only allow and log let the call through (the data
	 * bits of ERRNO do not matter) */
	static const struct { uint32_t ret; int denied; } acts[] = {
		{ SECCOMP_RET_ALLOW, 0 }, { SECCOMP_RET_LOG, 0 }, { SECCOMP_RET_ERRNO | 1, 1 },
		{ SECCOMP_RET_TRAP, 1 }, { SECCOMP_RET_TRACE, 1 }, { SECCOMP_RET_USER_NOTIF, 1 },
		{ SECCOMP_RET_KILL_PROCESS, 1 }, { SECCOMP_RET_KILL_THREAD, 1 },
	};
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		INSTALL(LD_NR, IF_NR(SYS_kill, acts[i].ret), RET(SECCOMP_RET_ALLOW));
		CHECK(fnt_denied(SYS_kill) == acts[i].denied && !fnt_denied(SYS_gettid), "action %#x", acts[i].ret);
	}

	/* the arguments the runtime passes: prctl allowed for PR_SET_NAME
	 * only forbids its PR_GET_NAME; allowed for PR_GET_NAME, it does not */
	INSTALL(LD_NR, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 1, 0), RET(SECCOMP_RET_ALLOW), LD_ARG0,
		IF_NR(PR_SET_NAME, SECCOMP_RET_ALLOW), RET(SECCOMP_RET_ERRNO | 1));
	CHECK(fnt_denied(SYS_prctl) && !fnt_denied(SYS_gettid), "prctl: PR_SET_NAME only");
	INSTALL(LD_NR, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 1, 0), RET(SECCOMP_RET_ALLOW), LD_ARG0,
		IF_NR(PR_GET_NAME, SECCOMP_RET_ALLOW), RET(SECCOMP_RET_ERRNO | 1));
	CHECK(none_denied(), "prctl: PR_GET_NAME allowed");

	/* the other architecture's numbers killed, x86-64 allowed */
	INSTALL(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0), RET(SECCOMP_RET_KILL_PROCESS),
		RET(SECCOMP_RET_ALLOW));
	CHECK(none_denied(), "arch check");

	/* X, scratch memory, ALU and JSET: nr kept in M[3], gettid's number
	 * in X, (nr & ~0) == X allows, JSET on bit 30 (the x32 ABI) kills */
	INSTALL(LD_NR, BPF_STMT(BPF_ST, 3), BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x40000000, 0, 1),
		RET(SECCOMP_RET_KILL_PROCESS), BPF_STMT(BPF_LDX | BPF_IMM, SYS_gettid), BPF_STMT(BPF_LD | BPF_IMM, 0),
		BPF_STMT(BPF_LD | BPF_MEM, 3), BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xffffffff),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 7), BPF_STMT(BPF_ALU | BPF_SUB | BPF_K, 7),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1), RET(SECCOMP_RET_ALLOW), RET(SECCOMP_RET_TRAP));
	CHECK(!fnt_denied(SYS_gettid) && fnt_denied(SYS_kill) && fnt_denied(SYS_fstat), "X, M[], ALU, JSET");

	/* a range by JGE/JGT: numbers from 200 up forbidden (openat 257,
	 * fallocate 285, pidfd_open 434), below allowed */
	INSTALL(LD_NR, BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 200, 0, 1), RET(SECCOMP_RET_ERRNO | 1),
		RET(SECCOMP_RET_ALLOW));
	CHECK(fnt_denied(SYS_openat) && fnt_denied(SYS_fallocate) && fnt_denied(SYS_pidfd_open) &&
	      !fnt_denied(SYS_gettid) && !fnt_denied(SYS_kill), "JGE range");

	/* what the runtime cannot run forbids everything on its list: a jump
	 * out of the program, an instruction it does not know (a byte load),
	 * a division by zero, scratch memory out of range, a NULL program */
	INSTALL(LD_NR, BPF_JUMP(BPF_JMP | BPF_JA, 5, 0, 0), RET(SECCOMP_RET_ALLOW));
	CHECK(all_denied(), "jump out");
	INSTALL(BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0), RET(SECCOMP_RET_ALLOW));
	CHECK(all_denied(), "byte load");
	INSTALL(LD_NR, BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), RET(SECCOMP_RET_ALLOW));
	CHECK(all_denied(), "division by zero");
	INSTALL(BPF_STMT(BPF_LD | BPF_MEM, BPF_MEMWORDS), RET(SECCOMP_RET_ALLOW));
	CHECK(all_denied(), "M[16]");
	INSTALL(LD_NR);
	CHECK(all_denied(), "no return");
	/* a program the kernel refuses with EFAULT forbids nothing (systemd
	 * and Chromium probe for seccomp with a NULL one): NULL, unmapped */
	memset(fnt_denied_mask, 0, sizeof(fnt_denied_mask));
	fnt_sandbox_filter(NULL);
	fnt_sandbox_done(0);
	CHECK(none_denied(), "NULL program");
	struct sock_fprog bad = { 2, (struct sock_filter *)8 };
	fnt_sandbox_filter((const void *)8);
	fnt_sandbox_done(0);
	fnt_sandbox_filter(&bad);
	fnt_sandbox_done(0);
	CHECK(none_denied(), "unmapped program");

	/* a filter the kernel refuses (no NO_NEW_PRIVS: EACCES) forbids
	 * nothing more than before it */
	INSTALL(LD_NR, IF_NR(SYS_kill, SECCOMP_RET_ERRNO | 1), RET(SECCOMP_RET_ALLOW));
	struct sock_filter h[] = { LD_NR, IF_NR(SYS_gettid, SECCOMP_RET_KILL_PROCESS), RET(SECCOMP_RET_ALLOW) };
	struct sock_fprog hp = { sizeof(h) / sizeof(h[0]), h };
	fnt_sandbox_filter(&hp);
	CHECK(fnt_denied(SYS_gettid), "before the kernel's answer");
	fnt_sandbox_done(0);
	CHECK(fnt_denied(SYS_kill) && !fnt_denied(SYS_gettid), "refused: the earlier mask");

	/* a word the runtime's real call may differ in: fstat allowed on
	 * descriptors 0-2 only forbids it (the trace file's is high); the
	 * instruction pointer too */
	INSTALL(LD_NR, BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_newfstatat, 1, 0), RET(SECCOMP_RET_ALLOW), LD_ARG0,
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 2, 0, 1), RET(SECCOMP_RET_TRAP), RET(SECCOMP_RET_ALLOW));
	CHECK(fnt_denied(SYS_newfstatat) && !fnt_denied(SYS_gettid), "fstat on fds 0-2 only");
	INSTALL(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer)),
		RET(SECCOMP_RET_ALLOW));
	CHECK(all_denied(), "instruction pointer");

	/* filters add up: the second adds to what the first forbids */
	INSTALL(LD_NR, IF_NR(SYS_kill, SECCOMP_RET_ERRNO | 1), RET(SECCOMP_RET_ALLOW));
	struct sock_filter g[] = { LD_NR, IF_NR(SYS_gettid, SECCOMP_RET_TRAP), RET(SECCOMP_RET_ALLOW) };
	struct sock_fprog gp = { sizeof(g) / sizeof(g[0]), g };
	fnt_sandbox_filter(&gp);
	fnt_sandbox_done(1);
	CHECK(fnt_denied(SYS_kill) && fnt_denied(SYS_gettid) && !fnt_denied(SYS_prctl), "two filters");

	/* an install while another is between its filter and the kernel's
	 * answer (another thread's, or as here a signal handler's) cannot be
	 * read: every call forbidden, and for good, even when the first is
	 * then refused */
	memset(fnt_denied_mask, 0, sizeof(fnt_denied_mask));
	fnt_sandbox_filter(&hp);
	fnt_sandbox_filter(&gp);
	CHECK(all_denied(), "an install inside another");
	fnt_sandbox_done(0);
	CHECK(all_denied(), "...stays when the outer one is refused");
	memset(sticky, 0, sizeof(sticky));

	/* seccomp()'s answers: 0, a listener's descriptor (NEW_LISTENER) are
	 * installs; a negative one, or with TSYNC a thread id, are not */
	CHECK(fnt_sandbox_seccomp_ok(0, 0) && fnt_sandbox_seccomp_ok(SECCOMP_FILTER_FLAG_NEW_LISTENER, 5) &&
	      fnt_sandbox_seccomp_ok(SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_NEW_LISTENER |
				     SECCOMP_FILTER_FLAG_TSYNC_ESRCH, 5) &&
	      !fnt_sandbox_seccomp_ok(0, -EACCES) && !fnt_sandbox_seccomp_ok(SECCOMP_FILTER_FLAG_TSYNC, 1234),
	      "seccomp() results");

	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
