/* three named threads, each with its own exact number of calls */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void *run(void *arg) {
	long n = (long)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker-%ld", n);
	pthread_setname_np(pthread_self(), name);
	for (long i = 0; i < n * 10; i++) work((int)i);
	return NULL;
}
int main(void) {
	pthread_t t[3];
	for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, run, (void *)(i + 1));
	for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
	return 0;
}
