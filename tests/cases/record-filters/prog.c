/* record-time filters: -F/-N/-D/-t/--module/--no-thread, on one program
 * with a sleeping call, two named threads and a dlopen'ed plugin */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#define NOINLINE __attribute__((noinline))
NOINLINE int leaf(int x) { __asm__ volatile(""); return x + 1; }
NOINLINE int mid(int x) { return leaf(x) + leaf(x + 1); }
NOINLINE int hidden(int x) { return mid(x) + 1; }
NOINLINE void sleepy(void) {
	struct timespec ts = { 0, 100 * 1000 * 1000 };   /* 100 ms */
	while (nanosleep(&ts, &ts))
		;
	mid(1);
}
NOINLINE int top(int n) {
	int s = 0;
	for (int i = 0; i < n; i++)
		s += mid(i) + hidden(i);
	sleepy();
	return s;
}
NOINLINE void *worker(void *name) {
	pthread_setname_np(pthread_self(), (const char *)name);
	mid(5);
	return NULL;
}
NOINLINE int call_plugin(const char *path) {
	void *h = dlopen(path, RTLD_NOW);
	if (!h) { fprintf(stderr, "%s\n", dlerror()); return -1; }
	int (*f)(int) = (int (*)(int))dlsym(h, "plug_work");
	int r = f(3);
	dlclose(h);
	return r;
}
int main(int argc, char **argv) {
	(void)argc;
	pthread_t a, b;
	char path[4096];
	int s = top(2);
	pthread_create(&a, NULL, worker, "keep-me");
	pthread_join(a, NULL);
	pthread_create(&b, NULL, worker, "skip-me");
	pthread_join(b, NULL);
	snprintf(path, sizeof(path), "%s", argv[0]);
	char *slash = __builtin_strrchr(path, '/');
	snprintf(slash + 1, sizeof(path) - (size_t)(slash + 1 - path), "plugin.so");
	return (s == 18 && call_plugin(path) == 6) ? 0 : 1;
}
