/* argv[1] calls of leaf, then a SIGKILL to its whole process group, which
 * `fntrace record` (and its witness) share with it */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long n;

__attribute__((noinline)) void leaf(void) { n++; }

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < k; i++)
		leaf();
	printf("made %ld calls\n", n);
	fflush(stdout);
	kill(0, SIGKILL);
	return 0;
}
