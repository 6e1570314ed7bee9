/* a dlopen'ed instrumented library's own PLT calls (malloc, qsort, free)
 * are traced, its qsort callback nests, and after dlclose and a second
 * dlopen the library's new mapping is traced again */
#include <dlfcn.h>
#include <stdio.h>

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
	printf("%d %d\n", a, b);
	return 0;
}
