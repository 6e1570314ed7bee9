/* launch PROG ARGS...: runs PROG in a child and exits once it has ended,
 * without reaping it (waitid with WNOWAIT): PROG stays a zombie, of this
 * process and then of whoever inherits it.  Built without hooks: PROG is
 * the process that holds record's ring. */
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	siginfo_t si;
	if (argc < 2)
		return 2;
	pid_t p = fork();
	if (p == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (p < 0 || waitid(P_PID, (id_t)p, &si, WEXITED | WNOWAIT))
		return 1;
	return 0;
}
