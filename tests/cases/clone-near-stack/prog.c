/* Children made by a hand-written `syscall` instruction with CLONE_VM and
 * without CLONE_SETTLS, on a stack 16 KiB below their parent's, then on one
 * 4 KiB below it: they run on their parent thread's thread-local storage,
 * and their stack pointers lie close to the ones the parent's calls use
 * (the second's inside the window of stack pointers the hooks take for
 * the thread).  They must be skipped and counted (they have no TLS of
 * their own), never taken for the parent thread going deeper: before,
 * their calls were recorded as the parent's.  The parent's calls before,
 * between and after are all there, nested as made.  A third child, on
 * the near stack too, makes its first call a microsecond after its parent
 * goes into waitpid: with library calls traced, the parent's last event is
 * then waitpid's entry, just before the child's first. */
#define _GNU_SOURCE
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

/* the third child: its first call a microsecond after its parent is let
 * go into waitpid, when the parent's last event is waitpid's entry (with
 * library calls traced) */
RAW static int late_child_fn(void *arg)
{
	while (!go)
		__asm__ volatile("pause");
	for (uint64_t t0 = __builtin_ia32_rdtsc(); __builtin_ia32_rdtsc() - t0 < 2000;)
		__asm__ volatile("pause");
	return child_fn(arg);
}

RAW static long spawn_late(uintptr_t gap)
{
	char here;
	uintptr_t top = ((uintptr_t)&here - gap) & ~(uintptr_t)15;
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
