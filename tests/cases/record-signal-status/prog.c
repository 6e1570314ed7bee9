/* dies of the signal named by its argument (or exits with the number
 * given as "exit N"), after a traced call */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((noinline)) void work(int n) { __asm__ volatile("" : : "r"(n)); }
int main(int argc, char **argv)
{
	work(1);
	if (argc > 2 && !strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	if (argc > 1) {
		signal(atoi(argv[1]), SIG_DFL);
		raise(atoi(argv[1]));
	}
	return 0;
}
