/* execve that fails (it returns -1, through its swapped return address)
 * and execve that succeeds (the new image, the same program with an
 * argument, is traced in turn) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

__attribute__((noinline)) static int try_missing(void)
{
	char *argv[] = { "missing", NULL };
	int r = execve("/nonexistent/fntrace-test", argv, environ);
	return r == -1 && errno == ENOENT;
}

__attribute__((noinline)) static void run_again(char *self)
{
	char *argv[] = { self, "again", NULL };
	fflush(stdout);
	execve(self, argv, environ);
	printf("exec failed: %s\n", strerror(errno));
}

__attribute__((noinline)) static void second(void)
{
	puts("second image");
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		second();
		return 0;
	}
	printf("missing: %d\n", try_missing());
	run_again(argv[0]);
	return 1;
}
