/* a dlopen'ed instrumented library's own PLT calls (malloc, qsort, free)
 * are traced, its qsort callback nests, and after dlclose and a second
 * dlopen the library's new mapping is traced again.  A library function's
 * address taken in the program (a GLOB_DAT slot of a PLT build) stays the
 * function's own. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int run_plugin(const char *path)
{
	void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return -1;
	}
	int (*sort)(int) = (int (*)(int))dlsym(h, "plugin_sort");
	int r = sort ? sort(3) : -1;
	dlclose(h);
	return r;
}

int main(void)
{
	int a = run_plugin("./plugin.so");      /* (record runs in the build directory) */
	int b = run_plugin("./plugin.so");
	void (*volatile mine)(void *) = free;
	printf("%d %d same free: %d\n", a, b, mine == (void (*)(void *))dlsym(RTLD_DEFAULT, "free"));
	return 0;
}
