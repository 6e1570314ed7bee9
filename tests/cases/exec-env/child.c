/* the program started with an environment of its own: it says what it got */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) void child_work(const char *how)
{
	const char *a = getenv("A"), *b = getenv("B"), *d = getenv("FNTRACE_DIR");
	printf("child %s A=%s B=%s euid=%d %s\n", how, a ? a : "-", b ? b : "-", (int)geteuid(),
	       d && *d == '/' ? "FNTRACE_DIR=kept" : "FNTRACE_DIR=set-by-program");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	child_work(argc > 1 ? argv[1] : "?");
	return 0;
}
