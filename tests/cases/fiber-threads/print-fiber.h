/* what main prints of each fiber: the workers that ran it, in order, and
 * what it computed (prog.c, switch.c) */
#include <stdio.h>

static void print_fiber(int id, const int *ran, int n_ran, long acc)
{
	printf("fiber %d ran on", id);
	for (int k = 0; k < n_ran; k++)
		printf(" %d", ran[k]);
	printf(": %ld\n", acc);
}
