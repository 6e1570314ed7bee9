/* perf-script/prog.c rebuilt with one change in middle (perf-inject-rebuilt).
 * Functions that burn CPU at known depths, in two threads at once:
 * main -> outer -> middle -> leaf and worker -> outer -> middle -> leaf.
 * Each level spins in its own body (leaf the longest), with no call in the
 * loop, so that perf's samples land in each at a known stack.  The work
 * after each call keeps the compilers from turning it into a tail call
 * (which would leave the caller's frame off the machine stack). */
#include <pthread.h>
#include <stdio.h>

static volatile unsigned long sink;

#define MS 1000000ul   /* about 1 ms of spinning, give or take the compiler */

__attribute__((noinline)) void leaf(void)
{
	for (unsigned long i = 0; i < 150 * MS; i++)
		sink += i;
}

__attribute__((noinline)) void middle(void)
{
	for (unsigned long i = 0; i < 40 * MS; i++)
		sink += i;
	sink++;         /* the rebuild: leaf is called 18 bytes further in */
	leaf();
	sink++;
}

__attribute__((noinline)) void outer(void)
{
	for (unsigned long i = 0; i < 40 * MS; i++)
		sink += i;
	middle();
	sink++;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	outer();
	sink++;
	return arg;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	outer();
	pthread_join(t, NULL);
	printf("done\n");
	return 0;
}
