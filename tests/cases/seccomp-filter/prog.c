/* A program that sandboxes itself with a seccomp filter, as browsers,
 * daemons and systemd's SystemCallFilter= do: a list of system calls that
 * kill the process (SECCOMP_RET_KILL_PROCESS), here the ones a plain
 * program never needs: pidfd_open, pidfd_send_signal, process_vm_readv,
 * ptrace.  Then two threads make 100,000 calls each, a forked child
 * 1,000 more, and the program exits with status 3. */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int work(int i)
{
	return i * 2 + 1;
}

__attribute__((noinline)) void *thread_main(void *arg)
{
	long s = 0;
	for (int i = 0; i < 100000; i++)
		s += work(i);
	*(long *)arg = s;
	return NULL;
}

#define KILL_IF(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

__attribute__((noinline)) int sandbox(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		KILL_IF(434),   /* pidfd_open */
		KILL_IF(424),   /* pidfd_send_signal */
		KILL_IF(SYS_process_vm_readv),
		KILL_IF(SYS_ptrace),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		return -1;
	}
	return 0;
}

int main(void)
{
	pthread_t t[2];
	long s[2];
	if (sandbox())
		return 1;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread_main, &s[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pid_t pid = fork();
	if (pid == 0) {
		long c = 0;
		for (int i = 0; i < 1000; i++)
			c += work(i);
		_exit(c == 1000000 ? 0 : 1);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	printf("%ld %d\n", s[0] + s[1], st);
	return 3;
}
