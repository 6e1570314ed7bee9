/* record-lock: a program that stays running until told to finish, so that
 * a second `fntrace record` can try the directory the first one holds.  It
 * calls work() 3 times, says "ready", waits for a line on its standard
 * input, then calls work() 4 more times. */
#include <stdio.h>

__attribute__((noinline)) int work(int x)
{
	return x + 1;
}

__attribute__((noinline)) int finish(int s)
{
	for (int i = 0; i < 4; i++)
		s += work(i);
	return s;
}

int main(void)
{
	char line[16];
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += work(i);
	puts("ready");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	printf("%d\n", finish(s));
	return 0;
}
