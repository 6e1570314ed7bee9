/* fork, then the child execs another instrumented program: three process
 * images (parent, child before exec, child after exec), each traced under the
 * right pid, in one replay */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int in_child(int x) { __asm__ volatile(""); return x + 2; }
__attribute__((noinline)) void become_second(const char *self) {
	char path[4096];
	snprintf(path, sizeof(path), "%s2", self);
	execl(path, path, "from-child", (char *)0);
	_exit(99);
}
__attribute__((noinline)) int spawn(const char *self) {
	pid_t p = fork();
	if (p == 0) {
		printf("child %ld\n", (long)getpid());
		fflush(stdout);
		in_child(1);
		become_second(self);
	}
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}
int main(int argc, char **argv) {
	(void)argc;
	printf("parent %ld\n", (long)getpid());
	fflush(stdout);
	in_parent(1);
	int st = spawn(argv[0]);
	in_parent(st);
	return st == 3 ? 0 : 1;
}
