/* a process that runs 150 ms, then forks a child that execs this program
 * again: a family of two images sharing a clock calibration (parent, child
 * before exec), and an image with its own (the child after exec) */
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void become_second(const char *self)
{
	execl(self, self, "second", (char *)0);
	_exit(99);
}
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "second"))
		return work(1) == 2 ? 0 : 1;
	struct timespec ts = { 0, 150 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	work(0);
	pid_t p = fork();
	if (p == 0)
		become_second(argv[0]);
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}
