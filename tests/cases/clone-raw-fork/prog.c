/* a raw fork (the clone system call made by hand: no pthread_atfork step)
 * after a fork() made elsewhere: the raw child's inherited frames are not
 * known, and must not be taken from the earlier fork */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((no_instrument_function)) static long raw_fork(void)
{
	long ret;
	register long r10 __asm__("r10") = 0, r8 __asm__("r8") = 0;
	__asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_clone), "D"((long)SIGCHLD), "S"(0L), "d"(0L),
			 "r"(r10), "r"(r8) : "rcx", "r11", "memory");
	return ret;
}
static int is_child;
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void child_work(void) { leaf(1); leaf(2); }
__attribute__((noinline)) void first_fork(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(leaf(0) == 1 ? 0 : 1);
	waitpid(p, NULL, 0);
}
__attribute__((noinline)) long raw_spawn(void)
{
	long p = raw_fork();
	if (p == 0) {
		is_child = 1;
		child_work();
	}
	return p;
}
__attribute__((noinline)) void wait_child(long p) { waitpid((pid_t)p, NULL, 0); }
int main(void)
{
	first_fork();
	long p = raw_spawn();
	if (!is_child)
		wait_child(p);
	return 0;
}
