/* -P and a plugin's constructor: the calls plug_init makes inside dlopen,
 * before dlopen returns, are traced like those main makes after it */
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char path[4096];
	(void)argc;
	snprintf(path, sizeof(path), "%s/plugin.so", dirname(strdup(argv[0])));
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	long (*run)(long) = (long (*)(long))dlsym(h, "plug_run");
	volatile long *calls = (volatile long *)dlsym(h, "plug_calls");
	long b = run(4);
	printf("%ld %ld\n", b, *calls);
	return 0;
}
