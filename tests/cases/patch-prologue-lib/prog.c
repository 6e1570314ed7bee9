/* -P on libraries only: a linked one and a dlopen'ed one, all three objects
 * built without instrumentation; -A/-R on a library function */
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

long shape_sum(long n);
long shape_area(long w, long h);

static long local_helper(long x)   /* the program's own code: not selected */
{
	return x + 1;
}

int main(int argc, char **argv)
{
	char path[4096];
	(void)argc;
	snprintf(path, sizeof(path), "%s/plugin.so", dirname(strdup(argv[0])));
	long a = shape_sum(3) + shape_area(6, 7);
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	long (*run)(long) = (long (*)(long))dlsym(h, "plug_run");
	long b = run(4);
	printf("%ld %ld %ld\n", a, b, local_helper(1));
	return 0;
}
