/* A program that forks after setting its own RLIMIT_NOFILE to 0 (as
 * OpenSSH's pre-authentication child does to itself): the child cannot
 * open a trace file, though the directory is writable to it.  The parent
 * makes 1,000 calls, the child 500, and the parent prints the child's
 * exit status. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int work(int i)
{
	return i * 2 + 1;
}

__attribute__((noinline)) long loop(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += work(i);
	return s;
}

int main(void)
{
	struct rlimit rl = { 0, 0 };
	long s = loop(1000);
	fflush(stdout);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 1;
	pid_t pid = fork();
	if (pid == 0)
		_exit(loop(500) == 250000 ? 0 : 1);
	int st = -1;
	waitpid(pid, &st, 0);
	printf("%ld %d\n", s, st);
	return 0;
}
