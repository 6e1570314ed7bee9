/* raw clone through libc's syscall(): clone(SIGCHLD) with no stack and
 * clone3 with no stack are fork-like children that skip pthread_atfork;
 * each must get its own trace file, and the parent's events stay intact */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int in_child(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 2; }

struct clone_args3 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

__attribute__((noinline)) int child_work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += in_child(i);
	return s;
}

int main(void)
{
	int s = 0, st;
	for (int i = 0; i < 1000; i++)
		s += in_parent(i);
	long pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		child_work(3000);
		_exit(0);
	}
	waitpid((pid_t)pid, &st, 0);
	struct clone_args3 ca;
	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0) {
		child_work(2000);
		_exit(0);
	}
	if (pid > 0)
		waitpid((pid_t)pid, &st, 0);
	for (int i = 0; i < 1000; i++)
		s += in_parent(i);
	return s > 0 ? 0 : 1;
}
