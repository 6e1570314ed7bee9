/* record-symlinks: a small program to record into trace directories where
 * someone has planted symlinks; it makes exactly 3 calls to work().  Given
 * a file name, it plants DIR/.session.tmp -> that file while it runs, as
 * another user could in a shared directory, before record writes the
 * session file at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int work(int x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += work(i);
	if (argc > 1) {
		char link[4096];
		snprintf(link, sizeof(link), "%s/.session.tmp", getenv("FNTRACE_DIR"));
		if (symlink(argv[1], link))
			perror(link);
	}
	printf("%d\n", s);
	return 0;
}
