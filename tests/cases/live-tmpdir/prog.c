/* Prints the trace directory it is recorded into (FNTRACE_DIR) and that
 * directory's mode, then makes two calls. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

__attribute__((noinline)) int leaf(int x)
{
	return x + 1;
}

int main(void)
{
	const char *d = getenv("FNTRACE_DIR");
	struct stat st;
	if (d && !stat(d, &st))
		printf("TRACEDIR %s %o\n", d, (unsigned)(st.st_mode & 07777));
	else
		printf("TRACEDIR none\n");
	fflush(stdout);
	return leaf(1) + leaf(2) == 5 ? 0 : 1;
}
