/* A thread leaves f() -> b() -> c() by pthread_exit (argument 0) or a
 * cancel (1); then a pthread key's destructor of the program's calls
 * d() -> e() -> leaf().  Record-time filters took the destructor's calls
 * as still inside f(): `record -F f` kept them, `-N f` and `-D 2` dropped
 * them, where replay with the same filters does the opposite. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

static pthread_key_t key;
static sem_t ready;

__attribute__((noinline)) void leaf(int i) { __asm__ volatile("" ::: "memory"); (void)i; }
__attribute__((noinline)) void e(void) { leaf(5); }
__attribute__((noinline)) void d(void) { e(); leaf(4); }

__attribute__((noinline)) void c(int mode)
{
	leaf(3);
	if (mode == 0)
		pthread_exit(NULL);
	sem_post(&ready);
	for (;;)
		pause();
}

__attribute__((noinline)) void b(int mode) { leaf(2); c(mode); leaf(22); }
__attribute__((noinline)) void f(int mode) { b(mode); leaf(11); }

static void dtor(void *p)
{
	(void)p;
	d();
}

static void *worker(void *arg)
{
	pthread_setspecific(key, (void *)1);
	f((int)(long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int mode = argc > 1 && argv[1][0] == '1';
	pthread_t t;
	void *r;
	sem_init(&ready, 0, 0);
	pthread_key_create(&key, dtor);
	pthread_create(&t, NULL, worker, (void *)(long)mode);
	if (mode == 1) {
		sem_wait(&ready);
		pthread_cancel(t);
	}
	pthread_join(t, &r);
	printf("%s\n", r == PTHREAD_CANCELED ? "cancelled" : "exited");
	return 0;
}
