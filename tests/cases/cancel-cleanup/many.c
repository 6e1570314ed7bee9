/* 300 threads, each cancelled inside traced calls (-pg: its frames' return
 * addresses swapped): the address space stays flat.  The runtime parked the
 * dead frames of each with its shadow stack (2.5 MB) and never unmapped it;
 * 4,096 threads on, the registry of parked stacks was full, and a
 * program's coroutines could no longer be traced.  With an argument the
 * threads return instead (recorded with every call filtered out, they
 * wrote no event, and their shadow stacks were kept too).  Prints whether
 * VmSize grew by less than 256 MB. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static sem_t ready;

static int returns;

__attribute__((noinline)) void inner(void)
{
	sem_post(&ready);
	while (!returns)
		pause();
}

__attribute__((noinline)) void outer(void) { inner(); }

static void *worker(void *arg)
{
	outer();
	return arg;
}

static long vm_kb(void)
{
	char l[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(l, sizeof(l), f))
		if (!strncmp(l, "VmSize:", 7))
			sscanf(l + 7, "%ld", &kb);
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	int cancelled = 0;
	(void)argv;
	returns = argc > 1;
	long before;
	sem_init(&ready, 0, 0);
	before = vm_kb();
	for (int i = 0; i < 300; i++) {
		pthread_t t;
		void *r;
		pthread_create(&t, NULL, worker, NULL);
		sem_wait(&ready);
		if (!returns)
			pthread_cancel(t);
		pthread_join(t, &r);
		cancelled += r == PTHREAD_CANCELED;
	}
	printf("cancelled %d, address space %s\n", cancelled, vm_kb() - before < 256 * 1024 ? "flat" : "GREW");
	return 0;
}
