/* a library loaded, called, unloaded, and loaded again */
#include <dlfcn.h>
#include <stdio.h>
__attribute__((noinline)) int call_plugin(const char *path, int x) {
	void *h = dlopen(path, RTLD_NOW);
	if (!h) { fprintf(stderr, "%s\n", dlerror()); return -1; }
	int (*f)(int) = (int (*)(int))dlsym(h, "plugin_entry");
	int r = f(x);
	dlclose(h);
	return r;
}
int main(int argc, char **argv) {
	(void)argc;
	char path[4096];
	snprintf(path, sizeof(path), "%s", argv[0]);
	char *slash = __builtin_strrchr(path, '/');
	snprintf(slash + 1, sizeof(path) - (size_t)(slash + 1 - path), "plugin.so");
	int a = call_plugin(path, 1);
	void *pad = dlopen("libm.so.6", RTLD_NOW);   /* may move the next load */
	int b = call_plugin(path, 2);
	return (a == 4 && b == 6 && pad) ? 0 : 1;
}
