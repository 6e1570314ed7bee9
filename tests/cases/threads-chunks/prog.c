/* six busy threads over many 16K chunks, plus 40 short-lived threads that
 * start and end while the busy ones run: every thread's calls exact, every
 * stream balanced, nothing lost */
#include <pthread.h>
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + leaf(x + 1); }
__attribute__((noinline)) int top(int x) { return mid(x) + 1; }
__attribute__((noinline)) void *busy(void *arg) {
	long n = (long)arg;
	char name[16];
	snprintf(name, sizeof(name), "busy-%ld", n);
	pthread_setname_np(pthread_self(), name);
	for (long i = 0; i < 5000 * n; i++) top((int)i);
	return 0;
}
__attribute__((noinline)) void *brief(void *arg) { leaf((int)(long)arg); return 0; }
int main(void) {
	pthread_t b[6], s[40];
	for (long i = 0; i < 6; i++) pthread_create(&b[i], 0, busy, (void *)(i + 1));
	for (long i = 0; i < 40; i++) pthread_create(&s[i], 0, brief, (void *)i);
	for (int i = 0; i < 40; i++) pthread_join(s[i], 0);
	for (int i = 0; i < 6; i++) pthread_join(b[i], 0);
	return 0;
}
