/* A patched plugin is closed, then patching switches (--patch-signal): the
 * switch must not write into the memory the plugin left.  Opened again, the
 * plugin is patched again. */
#include <dlfcn.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static long run(const char *path, long n)
{
	void *h = dlopen(path, RTLD_NOW);
	if (!h)
		return -1;
	long (*f)(long) = (long (*)(long))dlsym(h, "plug_run");
	long r = f(n);
	dlclose(h);
	return r;
}

int main(int argc, char **argv)
{
	char path[4096];
	(void)argc;
	snprintf(path, sizeof(path), "%s/plugin.so", dirname(strdup(argv[0])));
	raise(SIGUSR2);                 /* on */
	long a = run(path, 2);          /* traced, then closed */
	raise(SIGUSR2);                 /* off: the closed plugin's sites are not written */
	long b = run(path, 1);          /* not traced */
	raise(SIGUSR2);                 /* on */
	long c = run(path, 3);          /* opened again, patched again */
	printf("%ld %ld %ld\n", a, b, c);
	return 0;
}
