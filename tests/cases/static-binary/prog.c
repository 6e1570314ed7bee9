/* a program linked with libfntrace.a, statically (nothing can be preloaded
 * into it) or not; it must run unharmed, setjmp/longjmp included, and the
 * program it execs (argv[1]) is traced as any other */
#include <setjmp.h>
#include <sys/wait.h>
#include <unistd.h>
static jmp_buf env;
__attribute__((noinline)) void deep(int n) { if (n == 0) longjmp(env, 1); deep(n - 1); }
__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }
int main(int argc, char **argv)
{
	int s = 0;
	if (argc > 1) {         /* a child to run: the programs it execs are traced too */
		pid_t pid = fork();
		if (pid == 0) {
			execl(argv[1], argv[1], (char *)0);
			_exit(127);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
			return 2;
	}
	for (int i = 0; i < 5; i++)
		s = work(s);
	if (!setjmp(env))
		deep(2);
	return s == 5 ? 0 : 1;
}
