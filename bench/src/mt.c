/*
 * mt.c - the realistic mix (mixcore.h) on several threads at once, each with
 * its own data: items/threads items per thread, so the total work equals
 * `mix items`.
 *
 *   mt [items=100000] [threads=4]
 */
#include <pthread.h>
#include "mixcore.h"

struct job {
	pthread_t th;
	size_t n;
	uint64_t seed, result;
};

NOINLINE void *worker(void *arg)
{
	struct job *j = arg;

	j->result = run_mix(j->n, j->seed);
	return NULL;
}

int main(int argc, char **argv)
{
	size_t n = bench_arg(argc, argv, 1, 100000);
	unsigned nt = bench_arg(argc, argv, 2, 4);
	struct job jobs[64];
	uint64_t sum = 0;

	if (nt < 1 || nt > 64)
		return 2;
	for (unsigned i = 0; i < nt; i++) {
		jobs[i].n = n / nt;
		jobs[i].seed = 42 + i;
		if (pthread_create(&jobs[i].th, NULL, worker, &jobs[i]))
			return 1;
	}
	for (unsigned i = 0; i < nt; i++) {
		pthread_join(jobs[i].th, NULL);
		sum += jobs[i].result * (i + 1);
	}
	printf("result %llu\n", (unsigned long long)sum);
	BENCH_PRINT_CALLS();
	return 0;
}
