/* Hand-made vforks, clone(CLONE_VM | CLONE_VFORK | SIGCHLD) by a `syscall`
 * instruction, each in a function that returns in the child as well as in
 * the parent (as a non-inlined sys_vfork of linux_syscall_support.h
 * does).  The child goes on in main, on its parent's stack, and leaves by
 * an exit system call written inline, touching no stack below main's
 * frame: the parent, when it resumes, returns from the same frame.  The
 * first child makes 1000 calls before it returns, the second returns at
 * once (its first event is that return).  Under -pg and patchable entries
 * the frame's return address was swapped for the return trampoline, so
 * the child came back through it: the program aborted ("shadow stack out
 * of sync"); it must run as it does untraced, and both processes' calls
 * must be in the trace, nested as made. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALLS 1000

__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int in_child(int x) { __asm__ volatile(""); return x + 1; }

#include "../vfork-asm/raw-vfork.h"   /* RAW_VFORK(ret): both return from it */

/* exit(code) by the instruction: no call, nothing pushed */
#define RAW_EXIT(code) __asm__ volatile("syscall" : : "a"((long)SYS_exit), "D"((long)(code)) : "rcx", "r11", "memory")

static volatile int child_sum;

/* the child makes its calls, then returns */
__attribute__((noinline)) long vfork_calls(void)
{
	long pid;
	RAW_VFORK(pid);
	if (pid == 0) {
		int s = 0;
		for (int i = 0; i < CALLS; i++)
			s = in_child(s);
		child_sum = s;
	}
	return pid;
}

/* the child returns at once */
__attribute__((noinline)) long vfork_bare(void)
{
	long pid;
	RAW_VFORK(pid);
	return pid;
}

/* the same, reached by two tail calls at -O2: the three frames have one
 * return slot (`prog tail`) */
__attribute__((noinline)) long vfork_tail(void)
{
	return vfork_bare();
}

__attribute__((noinline)) long vfork_tail2(void)
{
	return vfork_tail();
}

__attribute__((noinline)) int reaped(long pid, int code)
{
	int st;
	return pid > 0 && waitpid((pid_t)pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == code;
}

int main(int argc, char **argv)
{
	int s = 0;
	long pid, pid1;

	if (argc > 1) {          /* tail */
		pid = vfork_tail2();
		if (pid == 0)
			RAW_EXIT(9);
		if (!reaped(pid, 9))
			return 12;
		printf("tail ok\n");
		return 0;
	}

	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	pid = vfork_calls();
	if (pid == 0)
		RAW_EXIT(7);
	if (!reaped(pid, 7))
		return 10;
	pid1 = pid;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	pid = vfork_bare();
	if (pid == 0)
		RAW_EXIT(8);
	if (!reaped(pid, 8))
		return 11;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	printf("%d %d\n", s, child_sum);
	fprintf(stderr, "pids %ld %ld\n", pid1, pid);
	return 0;
}
