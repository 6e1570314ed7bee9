/* vfork in a -finstrument-functions build with library calls on: vfork is
 * a zero-length call in the parent (the child returns through the same
 * stack); one child calls a traced function and _exit, the other execs
 * this program again */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static int in_child(int x)
{
	return x * 3;
}

__attribute__((noinline)) static int spawn_exit(void)
{
	int st = 0;
	pid_t p = vfork();
	if (p == 0)
		_exit(in_child(2));
	waitpid(p, &st, 0);
	return WEXITSTATUS(st);
}

__attribute__((noinline)) static int spawn_exec(char *self)
{
	int st = 0;
	pid_t p = vfork();
	if (p == 0) {
		char *argv[] = { self, "child", NULL };
		execv(self, argv);
		_exit(127);
	}
	waitpid(p, &st, 0);
	return WEXITSTATUS(st);
}

__attribute__((noinline)) static int exec_main(void)
{
	return 5;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return exec_main();
	int a = spawn_exit();
	int b = spawn_exec(argv[0]);
	printf("%d %d\n", a, b);
	return 0;
}
