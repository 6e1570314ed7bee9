/* An uninstrumented host that loads an instrumented plugin from a thread of
 * its own: neither the thread nor the process has run any traced code when
 * dlopen returns, so only dlopen itself can enter the plugin in the module
 * map. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static char path[4096];

static void *loader(void *arg)
{
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return NULL;
	}
	int (*f)(int) = (int (*)(int))dlsym(h, "plugin_entry");
	*(int *)arg = f(5);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int r = 0;
	(void)argc;
	snprintf(path, sizeof(path), "%s", argv[0]);
	strcpy(strrchr(path, '/') + 1, "plugin.so");
	pthread_create(&th, NULL, loader, &r);
	pthread_join(th, NULL);
	printf("plugin_entry(5) = %d\n", r);
	return r == 11 ? 0 : 1;
}
