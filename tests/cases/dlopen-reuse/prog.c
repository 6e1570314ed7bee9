/* dlclose then dlopen of another library, which the loader usually maps at
 * the address the first one had: each address must be named after the module
 * mapped when it ran (liba, libb, liba again) */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
static char dir[4096];
__attribute__((noinline)) int use(const char *name, int x) {
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) { fprintf(stderr, "%s\n", dlerror()); return -100; }
	int (*f)(int) = (int (*)(int))dlsym(h, "plugin_entry");
	int r = f(x);
	printf("%s %p\n", name, (void *)f);
	dlclose(h);
	return r;
}
int main(int argc, char **argv) {
	(void)argc;
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	*strrchr(dir, '/') = 0;
	int a = use("liba.so", 1);
	int b = use("libb.so", 2);
	int c = use("liba.so", 3);
	return (a == 3 && b == 5 && c == 7) ? 0 : 1;
}
