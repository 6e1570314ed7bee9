/* trace-modes: a trace is private unless asked otherwise.  The program
 * takes one snapshot through the API, so that the snapshot directory and
 * file it makes are checked too. */
#include <stdio.h>
#include "fntrace.h"

__attribute__((noinline)) int secret(int x)
{
	return x * 3;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 4; i++)
		s += secret(i);
	if (fnt_snapshot("mid"))
		puts("no snapshot");
	printf("%d\n", s);
	return 0;
}
