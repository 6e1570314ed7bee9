/* how processes end, as `info` tells it: children that call _exit(0),
 * _Exit(4) and syscall(SYS_exit_group, 5), one killed by a signal, two that
 * call exit(7) and exit(0) (exit handlers run), and the
 * command itself ending with _exit(3) (no exit handlers run) */
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int work(int n)
{
	__asm__ volatile("");
	return n * 2;
}

static void child(int how)
{
	pid_t pid = fork();
	if (pid == 0) {
		work(how);
		if (how == 1)
			_exit(0);
		if (how == 2)
			_Exit(4);
		if (how == 3)
			syscall(SYS_exit_group, 5);
		if (how == 5)
			exit(7);
		if (how == 6)
			exit(0);
		kill(getpid(), SIGKILL);
	}
	waitpid(pid, NULL, 0);
}

int main(void)
{
	for (int how = 1; how <= 6; how++)
		child(how);
	work(0);
	_exit(3);
}
