/* A return value recorded on a return whose entry is not in the trace: a
 * forked child leaving the frame its parent entered.  The view shows it
 * as on any return (before, it was recorded but never shown). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) long spawn(long x)
{
	pid_t p = fork();
	if (p == 0)
		return 0x1122334455667788L;
	waitpid(p, 0, 0);
	return x;
}

int main(void)
{
	long r = spawn(5);
	printf("%s spawn=%#lx\n", r == 5 ? "parent" : "child", r);
	fflush(stdout);
	return 0;
}
