/*
 * demo.c - the example program of the README's quick start: a little of
 * everything fntrace shows (nesting, recursion, a callback from libc, two
 * threads).  Build it with -finstrument-functions and record it:
 *
 *   gcc -finstrument-functions -g -O2 -o demo examples/demo.c -lpthread
 *   fntrace record -- ./demo
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shape {
	const char *name;
	double w, h;
};

static __attribute__((noinline)) double area(const struct shape *s)
{
	return s->w * s->h;
}

static __attribute__((noinline)) int by_area(const void *a, const void *b)
{
	double x = area(a), y = area(b);
	return (x > y) - (x < y);
}

static __attribute__((noinline)) void sort_shapes(struct shape *s, size_t n)
{
	qsort(s, n, sizeof(*s), by_area);
}

static __attribute__((noinline)) unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static __attribute__((noinline)) void *worker(void *arg)
{
	unsigned n = (unsigned)(uintptr_t)arg;
	printf("fib(%u) = %lu\n", n, fib(n));
	return NULL;
}

int main(void)
{
	struct shape shapes[] = {
		{ "door", 0.9, 2.0 }, { "table", 1.6, 0.8 }, { "stamp", 0.02, 0.03 }, { "wall", 4.0, 2.5 },
	};
	pthread_t t[2];

	sort_shapes(shapes, sizeof(shapes) / sizeof(shapes[0]));
	printf("largest: %s\n", shapes[3].name);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(5 + i));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
