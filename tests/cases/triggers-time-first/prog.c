/* -T FUNC@time=DUR and the runtime's own system calls: the first time=
 * call used to map the thread's saves from inside the call (a system call
 * and a page fault in the call's recorded time).  Here mmap fails once
 * main has started (a seccomp filter returns ENOMEM for it), so a save
 * mapped only then is no save at all, and the short quick() calls would be
 * kept whatever they last. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int quick(int x) { return leaf(x) + 1; }

__attribute__((no_instrument_function)) static int deny_mmap(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOMEM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p);
}

/* the filter does deny mmap (the test proves nothing otherwise) */
__attribute__((no_instrument_function)) static int mmap_failed_check(void)
{
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED && errno == ENOMEM;
}

int main(void)
{
	int s = leaf(1);
	printf("mmap denied: ");
	fflush(stdout);
	if (deny_mmap()) {
		perror("seccomp");
		return 2;
	}
	s += quick(2);
	s += quick(3);
	printf("%s\n", mmap_failed_check() ? "yes" : "no");
	return s == 11 ? 0 : 1;
}
