/* the child's calls are recorded under its own pid */
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int in_child(int x) { __asm__ volatile(""); return x + 2; }
__attribute__((noinline)) int spawn(void) {
	pid_t p = fork();
	if (p == 0) { in_child(1); in_child(2); _exit(0); }
	int st;
	waitpid(p, &st, 0);
	return st;
}
int main(void) { in_parent(1); return spawn(); }
