/* A signal handler on a 12 KiB sigaltstack forks, and the child makes a
 * traced call: its first event opens the child's trace file on that small
 * stack.  The trace path check's /etc reader (5 KB of buffers) was inlined
 * into that path and overflowed it: the child died of SIGSEGV. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) void work(void) { __asm__ volatile(""); }

static void on_usr1(int s)
{
	(void)s;
	pid_t p = fork();        /* async-signal-safe */
	if (p == 0) {
		work();
		_exit(0);
	}
	int st;
	waitpid(p, &st, 0);
	const char *m = WIFEXITED(st) ? "child exited\n" : "child killed\n";
	write(1, m, __builtin_strlen(m));
}

int main(int argc, char **argv)
{
	size_t sz = argc > 1 ? strtoul(argv[1], 0, 0) : 12288;
	char *m = mmap(NULL, sz + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(m, 4096, PROT_NONE);          /* a guard page below the alt stack */
	stack_t ss = { .ss_sp = m + 4096, .ss_size = sz };
	sigaltstack(&ss, NULL);
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_ONSTACK };
	sigaction(SIGUSR1, &sa, NULL);
	work();
	raise(SIGUSR1);
	puts("main done");
	return 0;
}
