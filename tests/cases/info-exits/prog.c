/* how processes end, as `info` tells it: a child that calls _exit(0), and
 * the command itself ending with _exit(3) (no exit handlers run) */
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int work(int n)
{
	__asm__ volatile("");
	return n * 2;
}

int main(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		work(1);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	work(2);
	_exit(3);
}
