/* fntrace tui: a small tree with known counts on two threads.
 * main: parse (helper x2 -> leaf x2 each... ), compute x1; worker thread: compute. */
#include <pthread.h>

#define noinline __attribute__((noinline))

volatile int sink;

noinline void leaf(void) { sink++; }

noinline void helper(int n)
{
	for (int i = 0; i < n; i++)
		leaf();
}

noinline void parse(void)
{
	helper(2);
	helper(2);
}

noinline void compute(void)
{
	for (int i = 0; i < 3; i++)
		helper(1);
}

noinline void *worker(void *arg)
{
	(void)arg;
	compute();
	return 0;
}

int main(void)
{
	pthread_t t;
	parse();
	compute();
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	return 0;
}
