/* fork from a second thread (the child is a copy of that thread alone), then
 * vfork and posix_spawn of an uninstrumented program: only the fork child
 * leaves a trace, under its own pid */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void *worker(void *a) {
	leaf(1);
	pid_t p = fork();
	if (p == 0) { leaf(2); leaf(3); _exit(0); }
	waitpid(p, 0, 0);
	p = vfork();
	if (p == 0) { _exit(0); }
	waitpid(p, 0, 0);
	char *argv[] = {"/bin/true", 0};
	posix_spawn(&p, "/bin/true", 0, 0, argv, environ);
	waitpid(p, 0, 0);
	leaf(4);
	return a;
}
int main(void) { pthread_t t; pthread_create(&t, 0, worker, 0); pthread_join(t, 0); return leaf(0) - 1; }
