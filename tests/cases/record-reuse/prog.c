/* record-reuse: record recognises its own files when it records into the
 * same directory again.  The program takes a snapshot through the API, so
 * the trace directory holds a snapshot-first/ directory. */
#include <stdio.h>
#include "fntrace.h"

__attribute__((noinline)) int step(int x)
{
	return x * 2;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 5; i++)
		s += step(i);
	if (fnt_snapshot("first"))
		puts("no snapshot");
	printf("%d\n", s);
	return 0;
}
