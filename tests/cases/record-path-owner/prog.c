/* sleeps (argument: seconds), then forks a child that makes 100 calls */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) void work(int i) { __asm__ volatile("" : : "r"(i)); }
int main(int argc, char **argv)
{
	work(0);
	if (argc > 1)
		sleep((unsigned)atoi(argv[1]));
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 100; i++)
			work(i);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return 0;
}
