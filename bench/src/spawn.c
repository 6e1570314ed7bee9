/*
 * spawn.c - run a command and report its wall time, CPU time and peak RSS.
 *
 *   spawn RESULTFILE command [args...]
 *
 * writes "wall_ns user_us sys_us maxrss_kb exitcode" to RESULTFILE.  The
 * harness runs every measured command through this small program instead of
 * straight from Python: ru_maxrss survives exec, so a child forked from the
 * Python interpreter would report at least the interpreter's own RSS.
 * Forked from this program, the command starts from a ~1 MB image.  Waiting
 * with wait4 includes the command's own waited-for children (the traced
 * program under `fntrace record`).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status, code;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: spawn RESULTFILE command [args...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return 3;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	f = fopen(argv[1], "w");
	if (!f)
		return 3;
	fprintf(f, "%lld %lld %lld %ld %d\n",
		(long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec),
		(long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
		(long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec,
		ru.ru_maxrss, code);
	return fclose(f) ? 3 : 0;
}
