/* dlopen is no cancellation point: a thread with a cancel pending loads a
 * library and returns.  The runtime reads the new module's ELF file from
 * inside the dlopen (its init trap), and the open there took the cancel:
 * the thread was cancelled with the dynamic linker's lock held, and
 * main's later dlopen hung. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile int go, reached;

__attribute__((noinline)) void *thr(void *a)
{
	(void)a;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	while (!go)
		;
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);    /* deferred: not acted on here */
	reached = dlopen("./liba.so", RTLD_NOW) != NULL;
	return NULL;
}

int main(void)
{
	pthread_t th;
	void *r;
	pthread_create(&th, 0, thr, 0);
	pthread_cancel(th);
	go = 1;
	pthread_join(th, &r);
	printf("thread: dlopen %d, %s\n", reached, r == PTHREAD_CANCELED ? "cancelled" : "returned");
	fflush(stdout);
	alarm(20);
	printf("main: dlopen %s\n", dlopen("./libb.so", RTLD_NOW) ? "ok" : dlerror());
	return 0;
}
