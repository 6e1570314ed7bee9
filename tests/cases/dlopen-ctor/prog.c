/* Constructors of dlopen'ed modules run inside dlopen, before it returns:
 * the library calls of an instrumented plugin's constructor, and the
 * functions -P selects in a plugin with patchable entries, are traced
 * there, loaded twice and once. */
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

static void *load(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	void *h = dlopen(path, RTLD_NOW);
	if (!h)
		printf("dlopen: %s\n", dlerror());
	return h;
}

int main(int argc, char **argv)
{
	(void)argc;
	char *dir = dirname(strdup(argv[0]));
	long got = 0;
	for (int round = 0; round < 2; round++) {
		void *h = load(dir, "plugin.so");
		if (!h)
			return 1;
		long (*get)(void) = (long (*)(void))dlsym(h, "plugin_get");
		got += get();
		dlclose(h);
	}
	void *p = load(dir, "pads.so");
	if (!p)
		return 1;
	volatile long *total = (volatile long *)dlsym(p, "pad_total");
	printf("%ld %ld\n", got, *total);
	return 0;
}
