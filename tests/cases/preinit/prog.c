/* Traced code that runs before the runtime's constructor: a .preinit_array
 * function (it runs before libc has set up environ) and the constructor
 * of a library the program links.  The runtime starts at their first call
 * and must still see fntrace record's settings (-d, -F). */
#include <stdio.h>

int lib_value(void);

__attribute__((noinline)) int early_work(int x)
{
	return x + 1;
}

static void preinit(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	early_work(1);
}
__attribute__((section(".preinit_array"), used)) static void (*preinit_p)(int, char **, char **) = preinit;

__attribute__((noinline)) int late_work(int x)
{
	return x * 2;
}

int main(void)
{
	int a = late_work(3);
	int b = lib_value();
	printf("%d %d\n", a, b);
	return 0;
}
