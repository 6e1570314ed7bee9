/* a flight recorder's snapshot gets its symbol table while the program
 * runs: the program deletes itself after the snapshot, and the snapshot
 * still reads with names and lines */
#define FNT_WEAK
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include "fntrace.h"

__attribute__((noinline)) int step(int x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) int late(int x)
{
	return step(x) * 2;
}

int main(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int v = 0;

	for (int i = 0; i < 3; i++)
		v = step(v);
	if (fnt_snapshot("mid"))
		return 2;
	usleep(1500 * 1000);            /* record saves the snapshot's tables */
	if (n <= 0)
		return 3;
	self[n] = 0;
	if (unlink(self))
		return 4;
	printf("%d\n", late(v));
	return 0;
}
