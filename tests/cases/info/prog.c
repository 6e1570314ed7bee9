/* what `fntrace info` says about a run: pid, threads with names and event
 * counts, modules with load address and build-id, events, status.  The
 * program prints what it knows about itself for check.py to compare. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x * 2; }
__attribute__((noinline)) void *worker(void *a) {
	pthread_setname_np(pthread_self(), "info-worker");
	printf("worker_tid %ld\n", (long)syscall(SYS_gettid));
	for (int i = 0; i < 5; i++) leaf(i);
	return a;
}
static int first_object(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size; (void)data;
	printf("base 0x%lx\n", (unsigned long)info->dlpi_addr);
	return 1;
}
int main(int argc, char **argv) {
	(void)argv;
	pthread_t t;
	printf("pid %ld\n", (long)getpid());
	dl_iterate_phdr(first_object, NULL);
	fflush(stdout);
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	leaf(argc);
	return argc == 3 ? 5 : 0;
}
