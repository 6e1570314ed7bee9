/* a child forked inside forker -> do_fork, after phase1: the check makes
 * the parent chunk that holds the end of phase1 and the entry of forker go
 * missing */
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
__attribute__((noinline)) int burn(int n) { int x = 0; for (int i = 0; i < n; i++) __asm__ volatile("" : "+r"(x)); return x; }
__attribute__((noinline)) void childwork(void) { burn(5); }
__attribute__((noinline)) void phase1(void) { for (int i = 0; i < 6000; i++) burn(20); }
__attribute__((noinline)) void do_fork(void) {
	for (int i = 0; i < 10000; i++) burn(1);
	pid_t p = fork();
	if (p == 0) { childwork(); _exit(0); }
	waitpid(p, NULL, 0);
}
__attribute__((noinline)) void forker(void) { do_fork(); }
int main(void) { phase1(); forker(); return 0; }
