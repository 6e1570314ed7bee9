/* A program that sandboxes itself with a seccomp filter, as OpenSSH's
 * pre-authentication child, browsers, daemons and systemd's
 * SystemCallFilter= do.  prog MODE, MODE:
 *   deny:  a list of system calls that kill the process
 *          (SECCOMP_RET_KILL_PROCESS): the ones a plain program never makes,
 *          pidfd_open, pidfd_send_signal, process_vm_readv, ptrace;
 *   allow: a list of the only calls allowed (memory, threads, futexes,
 *          sleeps, signal actions, getrandom, read, write, close, exits,
 *          wait4); any other kills it;
 *   trap:  the same list, any other call raises SIGSYS, whose handler
 *          (the program's) writes "SIGSYS <nr>" and exits with 99;
 *   lowfd: fstat and newfstatat allowed on descriptors 0-2 only (the
 *          trace file's is high), anything else allowed;
 *   probe: no filter: prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL),
 *          which fails with EFAULT, as systemd and Chromium ask whether
 *          seccomp is there.
 * Then: 100,000 calls, a 20 ms sleep and 1,000 more (the first call after
 * a pause is where the runtime checks the thread's id), two threads of
 * 100,000 calls each, a forked child of 1,000 (its exit status printed),
 * and exit status 3.  Output goes through write() (printf's first use
 * would fstat stdout, which the lists do not allow). */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int work(int i)
{
	return i * 2 + 1;
}

__attribute__((noinline)) long loop(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += work(i);
	return s;
}

__attribute__((noinline)) void *thread_main(void *arg)
{
	*(long *)arg = loop(100000);
	return NULL;
}

#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))
#define IF_NR(nr, action) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), RET(action)
#define ALLOW(nr) IF_NR(nr, SECCOMP_RET_ALLOW)
#define KILL SECCOMP_RET_KILL_PROCESS

__attribute__((no_instrument_function)) static void say(const char *s)
{
	(void)!write(1, s, strlen(s));
}

__attribute__((no_instrument_function)) static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	char buf[64];
	(void)sig, (void)uc;
	snprintf(buf, sizeof(buf), "SIGSYS %d\n", si->si_syscall);
	say(buf);
	_exit(99);
}

__attribute__((noinline)) int sandbox(const char *mode)
{
	struct sock_filter deny[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		RET(SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		IF_NR(434, KILL),       /* pidfd_open */
		IF_NR(424, KILL),       /* pidfd_send_signal */
		IF_NR(SYS_process_vm_readv, KILL),
		IF_NR(SYS_ptrace, KILL),
		RET(SECCOMP_RET_ALLOW),
	};
	int trap = !strcmp(mode, "trap");
	struct sock_filter allow[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		RET(KILL),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(SYS_read), ALLOW(SYS_write), ALLOW(SYS_close), ALLOW(SYS_exit), ALLOW(SYS_exit_group),
		ALLOW(SYS_brk), ALLOW(SYS_mmap), ALLOW(SYS_munmap), ALLOW(SYS_mprotect), ALLOW(SYS_madvise),
		ALLOW(SYS_futex), ALLOW(SYS_rt_sigreturn), ALLOW(SYS_rt_sigprocmask), ALLOW(SYS_clock_gettime),
		ALLOW(SYS_clock_nanosleep), ALLOW(SYS_nanosleep), ALLOW(SYS_clone), ALLOW(435 /* clone3 */),
		ALLOW(SYS_set_robust_list), ALLOW(334 /* rseq */), ALLOW(SYS_wait4), ALLOW(SYS_rt_sigaction),
		ALLOW(SYS_getrandom),
		RET(trap ? SECCOMP_RET_TRAP : KILL),
	};
	struct sock_filter lowfd[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fstat, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_newfstatat, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 2, 0, 1),
		RET(KILL),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(deny) / sizeof(deny[0]), .filter = deny };
	if (!strcmp(mode, "probe")) {
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL) != -1) {
			say("no EFAULT\n");
			return -1;
		}
		return 0;
	}
	if (!strcmp(mode, "lowfd")) {
		prog.len = sizeof(lowfd) / sizeof(lowfd[0]);
		prog.filter = lowfd;
	} else if (strcmp(mode, "deny")) {
		prog.len = sizeof(allow) / sizeof(allow[0]);
		prog.filter = allow;
	}
	if (trap) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigsys;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSYS, &sa, NULL);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	long s[2], m;
	char buf[96];
	if (argc < 2 || sandbox(argv[1]))
		return 1;
	m = loop(100000);
	struct timespec ts = { 0, 20000000 };
	nanosleep(&ts, NULL);
	m += loop(1000);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread_main, &s[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(loop(1000) == 1000000 ? 0 : 1);
	int st = -1;
	waitpid(pid, &st, 0);
	snprintf(buf, sizeof(buf), "%ld %ld %d\n", m, s[0] + s[1], st);
	say(buf);
	return 3;
}
