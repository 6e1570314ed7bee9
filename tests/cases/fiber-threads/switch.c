/* Fibers with a hand-written stack switch (as Boost.Context), moved
 * between two threads by a scheduler that is not traced (a library built
 * without instrumentation, as Boost.Fiber usually is).  Three fibers, two
 * workers that take turns (a baton: a mutex and a condition variable), each
 * turn running the next fiber of a shared queue until it yields: every
 * resume is on the other thread.  The scheduler makes no traced call: a
 * worker's first traced call is on a fiber's stack, and a worker that left
 * a fiber makes its next event on the next fiber it runs (with one fiber,
 * switch1.c, only after the other worker has resumed the one it left).
 * main prints which workers ran each fiber and what it computed. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
/* the scheduler: no hook in any build mode */
#define UNTRACED __attribute__((noinline, no_instrument_function, patchable_function_entry(0, 0)))
#define WORKERS 2
#ifndef FIBERS
#define FIBERS 3
#endif
#define ROUNDS 3
#define STACK (256 << 10)

#include "../stack-switch/ctx-switch.h"
#include "print-fiber.h"

struct fiber {
	void *sp;
	void **volatile sched;      /* where the worker running it saved its own stack pointer */
	volatile int worker;
	int id, done;
	long acc;
	int ran[ROUNDS + 1], n_ran;
	char *stack;
};

static struct fiber fibers[FIBERS];
static struct fiber *queue[FIBERS];
static int q_head, q_len, turn, finished;
static void *sched_sp[WORKERS];
static struct fiber *starting;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

NOINLINE long leaf(long x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

NOINLINE void yield(struct fiber *f)
{
	ctx_switch(&f->sp, *f->sched);
}

NOINLINE long step(struct fiber *f, int i)
{
	long v = leaf(f->id * 10 + i);
	f->ran[f->n_ran++] = f->worker;
	yield(f);
	return v + leaf(i);
}

NOINLINE void fiber_main(struct fiber *f)
{
	for (int i = 0; i < ROUNDS; i++)
		f->acc += step(f, i);
	f->ran[f->n_ran++] = f->worker;
	f->acc += leaf(f->acc);
}

/* where a new fiber starts: runs it, then back to its worker for good */
UNTRACED void fiber_entry(void)
{
	struct fiber *f = starting;
	fiber_main(f);
	f->done = 1;
	ctx_switch(&f->sp, *f->sched);
	abort();                    /* never resumed */
}

UNTRACED void *new_stack(struct fiber *f)
{
	void **sp = (void **)(((uintptr_t)f->stack + STACK) & ~(uintptr_t)15);
	*--sp = 0;                  /* fiber_entry's return address: it never returns */
	*--sp = (void *)fiber_entry;    /* where ctx_switch returns to */
	for (int i = 0; i < 6; i++)
		*--sp = 0;              /* rbp rbx r12-r15 */
	return sp;
}

UNTRACED void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	for (;;) {
		pthread_mutex_lock(&lock);
		while (turn != me && !finished)
			pthread_cond_wait(&cond, &lock);
		if (finished) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		struct fiber *f = queue[q_head];
		q_head = (q_head + 1) % FIBERS;
		q_len--;
		pthread_mutex_unlock(&lock);
		f->sched = &sched_sp[me];
		f->worker = me;
		starting = f;
		ctx_switch(&sched_sp[me], f->sp);   /* until it yields, or is done */
		pthread_mutex_lock(&lock);
		if (!f->done)
			queue[(q_head + q_len++) % FIBERS] = f;
		finished = !q_len;
		turn = (me + 1) % WORKERS;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
}

int main(void)
{
	pthread_t th[WORKERS];
	for (int i = 0; i < FIBERS; i++) {
		fibers[i].id = i;
		fibers[i].stack = malloc(STACK);
		fibers[i].sp = new_stack(&fibers[i]);
		queue[q_len++] = &fibers[i];
	}
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < FIBERS; i++) {
		print_fiber(i, fibers[i].ran, fibers[i].n_ran, fibers[i].acc);
		free(fibers[i].stack);
	}
	return 0;
}
