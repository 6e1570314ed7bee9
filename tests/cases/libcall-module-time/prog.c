/* --module and -t select library calls like any function: --module by the
 * module that makes the call, -t by how long it took */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int help_work(const char *s);

__attribute__((noinline)) static void slow(void)
{
	usleep(60000);
}

__attribute__((noinline)) static size_t quick(const char *s)
{
	return strlen(s);
}

int main(int argc, char **argv)
{
	(void)argv;
	const char *s = argc > 5 ? "0" : "12";
	slow();
	size_t n = quick(s);
	int h = help_work(s);
	printf("%zu %d\n", n, h);
	return 0;
}
