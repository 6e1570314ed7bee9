/* Children made by a hand-written `syscall` instruction with CLONE_VM and
 * without CLONE_SETTLS, on a stack 16 KiB below their parent's, then on one
 * 4 KiB below it: they run on their parent thread's thread-local storage,
 * and their stack pointers lie close to the ones the parent's calls use
 * (the second's inside the window of stack pointers the hooks take for
 * the thread).  They must be skipped and counted (they have no TLS of
 * their own), never taken for the parent thread going deeper: before,
 * their calls were recorded as the parent's.  The parent's calls before,
 * between and after are all there, nested as made.  A third child, on
 * the near stack too, makes its first call as soon as its parent is asleep
 * in waitpid: with library calls traced, the parent's last event is then
 * waitpid's entry, just before the child's first. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALLS 1000
/* the children's stack tops, below the parent's stack pointer */
#define FAR_GAP (16 << 10)
#define NEAR_GAP (4 << 10)

__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }
#include "../clone-asm/raw-clone.h"

/* the child's stack: gap below this frame, in the part of the thread's
 * stack its calls have not reached (waitpid, below, needs far less) */
RAW static long spawn_near(uintptr_t gap)
{
	char here;
	uintptr_t top = ((uintptr_t)&here - gap) & ~(uintptr_t)15;
	return raw_clone(CLONE_VM | SIGCHLD, (void *)top, child_fn, NULL);
}

static volatile int go;
static long parent_stat = -1;   /* the parent's /proc/self/stat */

/* a system call without libc (whose calls would be traced, and errno is
 * the parent's TLS) */
RAW static long raw_syscall(long n, long a, long b, long c, long d)
{
	long ret;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall" : "=a"(ret) : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
	return ret;
}

/* 1 once the parent's state is S: asleep in waitpid, its only sleep
 * after go (a read takes ~1 us, so the child's first call still comes a
 * few microseconds after the parent's waitpid entry) */
RAW static int parent_sleeps(void)
{
	char buf[512];
	long n = raw_syscall(SYS_pread64, parent_stat, (long)buf, sizeof(buf), 0);
	for (long i = n - 1; i > 0; i--)        /* "pid (comm) S ...": after the last ')' */
		if (buf[i - 1] == ')' && i + 1 < n)
			return buf[i + 1] == 'S';
	return 0;
}

/* the third child: its first call just after its parent is asleep in
 * waitpid, when the parent's last event is waitpid's entry (with library
 * calls traced).  It waits (a minute at most) for the kernel to show the
 * parent asleep: a spin of a fixed time let it run beside a parent
 * preempted before or inside waitpid's hook on a loaded machine */
RAW static int late_child_fn(void *arg)
{
	while (!go)
		__asm__ volatile("pause");
	for (uint64_t t0 = __builtin_ia32_rdtsc(); !parent_sleeps() && __builtin_ia32_rdtsc() - t0 < 120000000000ull;)
		__asm__ volatile("pause");
	return child_fn(arg);
}

RAW static long spawn_late(uintptr_t gap)
{
	char here;
	uintptr_t top = ((uintptr_t)&here - gap) & ~(uintptr_t)15;
	parent_stat = raw_syscall(SYS_open, (long)"/proc/self/stat", O_RDONLY | O_CLOEXEC, 0, 0);
	return raw_clone(CLONE_VM | SIGCHLD, (void *)top, late_child_fn, NULL);
}

int main(void)
{
	int st, s = 0;
	long pid;

	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	pid = spawn_near(FAR_GAP);
	if (pid < 0 || waitpid((pid_t)pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 11;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	pid = spawn_near(NEAR_GAP);
	if (pid < 0 || waitpid((pid_t)pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 12;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	pid = spawn_late(NEAR_GAP);
	go = 1;
	if (pid < 0 || waitpid((pid_t)pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 13;
	for (int i = 0; i < CALLS; i++)
		s = in_parent(s);
	printf("%d\n", s);
	return 0;
}
