/* the runtime must never hurt its host: threads, a dlopen/dlclose loop,
 * forks and an instrumented signal handler all at once */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static int ticks;   /* handlers run on several threads at once: atomic */
static volatile int stop;
static char plugin[4096];

__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void on_tick(int sig) { (void)sig; __atomic_fetch_add(&ticks, 1, __ATOMIC_RELAXED); work(0); }
__attribute__((noinline)) void *busy(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200000; i++)
		work(i);
	return NULL;
}
/* one round at least, however late the thread is scheduled: main may
 * be done before it first runs, on a loaded machine */
__attribute__((noinline)) void *loader(void *arg)
{
	(void)arg;
	do {
		void *h = dlopen(plugin, RTLD_NOW);
		if (h) {
			int (*f)(int) = (int (*)(int))dlsym(h, "plugin_entry");
			f(1);
			dlclose(h);
		}
	} while (!stop);
	return NULL;
}
__attribute__((noinline)) int child(int n) { int s = 0; for (int i = 0; i < n; i++) s += work(i); return s; }

int main(int argc, char **argv)
{
	(void)argc;
	pthread_t t[3], l;
	struct sigaction sa;
	struct itimerval it = { { 0, 200 }, { 0, 200 } };

	snprintf(plugin, sizeof(plugin), "%s", argv[0]);
	strcpy(strrchr(plugin, '/') + 1, "plugin.so");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	pthread_create(&l, NULL, loader, NULL);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, busy, NULL);
	for (int i = 0; i < 20; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(child(100) == 5050 ? 0 : 1);
		int st;
		waitpid(p, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			return 2;
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	stop = 1;
	pthread_join(l, NULL);
	setitimer(ITIMER_PROF, &(struct itimerval){ { 0, 0 }, { 0, 0 } }, NULL);
	printf("ticks %d\n", __atomic_load_n(&ticks, __ATOMIC_RELAXED));
	return 0;
}
