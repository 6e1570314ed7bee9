/* loads the library named by argv[1] twice, calling into it each time */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	long sum = 0;
	for (int round = 0; round < 2 && argc > 1; round++) {
		void *h = dlopen(argv[1], RTLD_NOW);
		int (*lg)(int);
		if (!h || !(lg = (int (*)(int))dlsym(h, "lg"))) {
			printf("%s\n", dlerror());
			return 1;
		}
		sum += lg(round);
		dlclose(h);
	}
	printf("%ld\n", sum);
	return 0;
}
