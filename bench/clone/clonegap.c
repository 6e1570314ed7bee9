/*
 * clonegap.c - how soon after its parent's last instruction a hand-made
 * vfork child can run its first one: the figure behind the runtime's
 * FNT_GAP_TICKS / FNT_GAP_NS bound (runtime/runtime.h, doc/safety.md).
 *
 * A child made by clone(CLONE_VM|CLONE_VFORK) with a raw `syscall`
 * instruction shares its parent thread's TLS and stack, so the hooks tell
 * it from the thread only by the pause before its first event: every event
 * after a pause of at least 8,192 cycle-counter ticks (2,048 ns under the
 * monotonic clock) has its thread id checked.  That is safe only if no
 * such clone is faster than the bound.  This program reads the cycle
 * counter right before the `syscall` instruction and, in the child, right
 * after it (nothing runs between them but the kernel), N times, and prints
 * the smallest gap in ticks and in ns, with the margin over each bound:
 *
 *   clonegap [N]     (default 20000)
 *
 * Output, one line each: `ticks_per_ns X`, `min_ticks T`, `min_ns S`,
 * `median_ns M`, `margin_tsc R1`, `margin_monotonic R2`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CLONE_VM_ 0x00000100
#define CLONE_VFORK_ 0x00004000
#define SIGCHLD_ 17

static volatile uint64_t child_tsc;

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* One clone(CLONE_VM|CLONE_VFORK|SIGCHLD) on the caller's stack: the
 * parent's reading just before the syscall; the child stores its own just
 * after it and exits, all inside this asm, touching no stack. */
static uint64_t one_clone(long *pid)
{
	register uint64_t before __asm__("r8");
	long ret;
	__asm__ volatile(
		"rdtsc\n\t"
		"shl $32, %%rdx\n\t"
		"or %%rdx, %%rax\n\t"
		"mov %%rax, %%r8\n\t"
		"mov %[nr], %%eax\n\t"
		"syscall\n\t"
		"test %%rax, %%rax\n\t"
		"jnz 1f\n\t"
		"rdtsc\n\t"
		"shl $32, %%rdx\n\t"
		"or %%rdx, %%rax\n\t"
		"mov %%rax, %[child]\n\t"
		"mov $60, %%eax\n\t"          /* SYS_exit */
		"xor %%edi, %%edi\n\t"
		"syscall\n\t"
		"1:\n\t"
		: "=a"(ret), "=r"(before), [child] "=m"(child_tsc)
		: [nr] "i"(SYS_clone), "D"((long)(CLONE_VM_ | CLONE_VFORK_ | SIGCHLD_)), "S"(0L)
		: "rcx", "rdx", "r10", "r11", "memory");
	*pid = ret;
	return before;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double ticks_per_ns(void)
{
	struct timespec a, b, d = {0, 50 * 1000 * 1000};
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t t0 = tsc();
	nanosleep(&d, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	uint64_t t1 = tsc();
	return (double)(t1 - t0) / ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec));
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	if (n < 1) {
		fprintf(stderr, "usage: clonegap [N]\n");
		return 2;
	}
	uint64_t *gap = malloc(sizeof(*gap) * (size_t)n);
	if (!gap)
		return 1;
	double tpn = ticks_per_ns();
	for (long i = 0; i < n; i++) {
		long pid;
		child_tsc = 0;
		uint64_t before = one_clone(&pid);
		if (pid < 0) {
			fprintf(stderr, "clonegap: clone failed (%ld)\n", pid);
			return 1;
		}
		waitpid((pid_t)pid, NULL, 0);
		gap[i] = child_tsc - before;
	}
	qsort(gap, (size_t)n, sizeof(*gap), cmp);
	printf("clones %ld\n", n);
	printf("ticks_per_ns %.4f\n", tpn);
	printf("min_ticks %llu\n", (unsigned long long)gap[0]);
	printf("min_ns %.0f\n", gap[0] / tpn);
	printf("median_ns %.0f\n", gap[n / 2] / tpn);
	printf("margin_tsc %.1f\n", gap[0] / 8192.0);
	printf("margin_monotonic %.1f\n", gap[0] / tpn / 2048.0);
	return 0;
}
