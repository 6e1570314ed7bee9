/* a plugin opened by a relative path, dlopen("./libplugin.so"): the trace must
 * name its functions when read from another directory */
#include <dlfcn.h>
#include <stdio.h>
int main(void)
{
	void *h = dlopen("./libplugin.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	int (*entry)(int) = (int (*)(int))dlsym(h, "plugin_entry");
	int s = entry(3) + entry(4);
	dlclose(h);
	return s == 32 ? 0 : 1;
}
