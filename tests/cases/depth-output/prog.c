/* depth-output: a 2,000,000-deep direct recursion and a 20,000-deep mutual
 * recursion, on a thread with a stack big enough for them.  The views of
 * their trace must write output linear in the events: direct recursion is
 * one frame, and paths are cut at 4096 frames. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long down(long n)
{
	long r = n ? down(n - 1) + 1 : 0;
	__asm__ volatile("" : "+r"(r));     /* no tail or accumulator recursion */
	return r;
}

__attribute__((noinline)) long odd(long n);
__attribute__((noinline)) long even(long n)
{
	long r = n ? odd(n - 1) : 1;
	__asm__ volatile("" : "+r"(r));
	return r;
}
__attribute__((noinline)) long odd(long n)
{
	long r = n ? even(n - 1) : 0;
	__asm__ volatile("" : "+r"(r));
	return r;
}

static void *deep(void *arg)
{
	long d = (long)arg;
	printf("down %ld even %ld\n", down(d), even(20000));
	return NULL;
}

int main(int argc, char **argv)
{
	long d = argc > 1 ? atol(argv[1]) : 2000000;
	pthread_attr_t a;
	pthread_t t;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, (size_t)1 << 30);    /* reserved, touched only as deep as it goes */
	if (pthread_create(&t, &a, deep, (void *)d))
		return 1;
	pthread_join(t, NULL);
	return 0;
}
