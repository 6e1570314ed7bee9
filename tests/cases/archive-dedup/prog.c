/* fntrace archive: each tar entry once (two copies of one library, so two
 * paths with one build-id; an unpacked archive archived again) */
#include <dlfcn.h>
#include <stdio.h>

__attribute__((noinline)) static int call(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*area)(int, int) = h ? (int (*)(int, int))dlsym(h, "area") : NULL;
	if (!area) {
		fprintf(stderr, "%s\n", dlerror());
		return -1;
	}
	return area(2, 3);
}

int main(int argc, char **argv)
{
	int t = 0;
	for (int i = 1; i < argc; i++)
		t += call(argv[i]);
	return t == 6 * (argc - 1) ? 0 : 1;
}
