/* A signal that lands during the runtime's munmap of a full chunk (the
 * program's own munmap, which the runtime's call reaches, raises it right
 * after the system call) and whose handler siglongjmps out: the guard is
 * freed (siglongjmp-hook), and what the hook had half written is zeroed:
 * that must not be the chunk just unmapped (the program died of SIGSEGV).
 * Every call after the jump is recorded. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static sigjmp_buf env;
static volatile int armed;
static volatile long hits;

/* stands for a signal that arrives during the runtime's munmap system call:
 * the kernel delivers it at the syscall's return, before chunk_release
 * clears t->pos */
__attribute__((no_instrument_function)) int munmap(void *p, size_t n)
{
	long r = syscall(SYS_munmap, p, n);
	if (armed && n == 16384) {
		armed = 0;
		raise(SIGUSR1);
	}
	return (int)r;
}

__attribute__((no_instrument_function)) static void h(int s)
{
	(void)s;
	siglongjmp(env, 1);
}

__attribute__((noinline)) void leaf(int i) { hits += i; __asm__ volatile(""); }

int main(void)
{
	signal(SIGUSR1, h);
	if (sigsetjmp(env, 1) == 0) {
		armed = 1;
		for (int i = 0; i < 1000000; i++)
			leaf(i);
	}
	printf("back, hits=%ld\n", hits);
	for (int i = 0; i < 1000; i++)
		leaf(i);
	puts("done");
	return 0;
}
