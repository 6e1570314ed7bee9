/* threads whose chunks a walk leaves behind: "seq N" starts N threads one
 * after another, "par" runs four at once (their chunks interleave) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long f(long x, long y)
{
	return x * 3 + y;
}

static long calls = 3000;

static void *run(void *arg)
{
	long s = 0;
	for (long i = 0; i < calls; i++)
		s += f(i, 1);
	*(long *)arg = s;
	return NULL;
}

int main(int argc, char **argv)
{
	long total = 0;
	if (argc > 2 && !strcmp(argv[1], "seq")) {
		int n = atoi(argv[2]);
		for (int i = 0; i < n; i++) {
			pthread_t t;
			long r;
			pthread_create(&t, NULL, run, &r);
			pthread_join(t, NULL);
			total += r;
		}
	} else {
		pthread_t t[4];
		long r[4];
		calls = 1500000;
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, run, &r[i]);
		for (int i = 0; i < 4; i++) {
			pthread_join(t[i], NULL);
			total += r[i];
		}
	}
	printf("%ld\n", total);
	return 0;
}
