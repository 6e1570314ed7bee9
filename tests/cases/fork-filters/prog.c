/* read-time -F/-N in a forked child: the child inherits main and spawn,
 * calls under them, and returns through both (orphan exits); its own child
 * (forked in child_work) inherits main, spawn and child_work */
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int hidden(int x) { return leaf(x) + 1; }
__attribute__((noinline)) int grand(void) { return leaf(7); }
__attribute__((noinline)) int child_work(void)
{
	leaf(1);
	pid_t p = fork();
	if (p == 0) {
		grand();
		_exit(0);
	}
	waitpid(p, NULL, 0);
	return hidden(2);
}
__attribute__((noinline)) int before(void) { return leaf(0); }
__attribute__((noinline)) int tail(void) { return leaf(9); }
__attribute__((noinline)) int spawn(void) {
	pid_t p = fork();
	if (p == 0) {
		child_work();
		return -1;      /* the child returns through spawn and main */
	}
	int st;
	waitpid(p, &st, 0);
	return st;
}
int main(void)
{
	before();
	if (spawn() < 0) {
		tail();
		return 0;
	}
	return 0;
}
