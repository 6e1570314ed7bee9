/* Fibers moved between threads, as a work-stealing scheduler moves them:
 * makecontext/swapcontext coroutines that two worker threads pass to each
 * other through mailboxes (a mutex and a condition variable each).  Each
 * fiber runs a few nested calls, yields from inside them (swapcontext back
 * to the worker that resumed it), and is then resumed by the OTHER worker:
 * its frames were entered on one thread and return on the other.  A fiber
 * that is done returns through its uc_link, inside libc, to the scheduler
 * of the worker that resumed it last (known in advance: they alternate).
 * Under -pg -mfentry and patchable entries the returns of the moved frames
 * go through return addresses the runtime swapped on the first thread.
 * main prints, after both workers are done, which workers ran each fiber
 * and what it computed: the same, traced or not. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
#include "print-fiber.h"

#define NOINLINE __attribute__((noinline))
#define WORKERS 2
#define FIBERS 4
#define ROUNDS 3                    /* yields per fiber: it runs ROUNDS + 1 times */
#define STACK (64 << 10)

struct fiber {
	ucontext_t ctx;
	ucontext_t *volatile sched; /* the scheduler of the worker running it */
	volatile int worker;        /* ...and its number */
	int id;
	long acc;
	int ran[ROUNDS + 1], n_ran;
	struct fiber *next;
	char *stack;
};

struct worker {
	pthread_t th;
	int id;
	ucontext_t sched;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct fiber *head, *tail;  /* mailbox */
};

static struct worker workers[WORKERS];
static struct fiber fibers[FIBERS];
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static int done;

NOINLINE long leaf(long x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

/* back to the worker's scheduler; resumed later by the other worker */
NOINLINE void yield(struct fiber *f)
{
	swapcontext(&f->ctx, f->sched);
}

NOINLINE long step(struct fiber *f, int i)
{
	long v = leaf(f->id * 10 + i);
	f->ran[f->n_ran++] = f->worker;
	yield(f);
	return v + leaf(i);
}

NOINLINE void fiber_main(int id)
{
	struct fiber *f = &fibers[id];
	for (int i = 0; i < ROUNDS; i++)
		f->acc += step(f, i);
	f->ran[f->n_ran++] = f->worker;
	f->acc += leaf(f->acc);
}

NOINLINE void post(struct worker *w, struct fiber *f)
{
	pthread_mutex_lock(&w->lock);
	f->next = NULL;
	if (w->tail)
		w->tail->next = f;
	else
		w->head = f;
	w->tail = f;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* the next fiber for w, or NULL once every fiber is done */
NOINLINE struct fiber *take(struct worker *w)
{
	struct fiber *f;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		if ((f = w->head) != NULL) {
			w->head = f->next;
			if (!w->head)
				w->tail = NULL;
			break;
		}
		pthread_mutex_lock(&done_lock);
		int all = done == FIBERS;
		pthread_mutex_unlock(&done_lock);
		if (all)
			break;
		pthread_cond_wait(&w->cond, &w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return f;
}

NOINLINE int resume(struct worker *w, struct fiber *f)
{
	f->sched = &w->sched;
	f->worker = w->id;
	swapcontext(&w->sched, &f->ctx);
	return f->n_ran == ROUNDS + 1;
}

NOINLINE void *worker(void *arg)
{
	struct worker *w = arg;
	struct fiber *f;
	while ((f = take(w)) != NULL) {
		if (!resume(w, f)) {
			post(&workers[(w->id + 1) % WORKERS], f);   /* the other worker goes on with it */
			continue;
		}
		pthread_mutex_lock(&done_lock);
		int all = ++done == FIBERS;
		pthread_mutex_unlock(&done_lock);
		if (all)
			for (int i = 0; i < WORKERS; i++) {
				pthread_mutex_lock(&workers[i].lock);
				pthread_cond_broadcast(&workers[i].cond);
				pthread_mutex_unlock(&workers[i].lock);
			}
	}
	return NULL;
}

int main(void)
{
	for (int i = 0; i < WORKERS; i++) {
		workers[i].id = i;
		pthread_mutex_init(&workers[i].lock, NULL);
		pthread_cond_init(&workers[i].cond, NULL);
	}
	for (int i = 0; i < FIBERS; i++) {
		struct fiber *f = &fibers[i];
		f->id = i;
		f->stack = malloc(STACK);
		getcontext(&f->ctx);
		f->ctx.uc_stack.ss_sp = f->stack;
		f->ctx.uc_stack.ss_size = STACK;
		/* it alternates between the workers, from worker i % WORKERS:
		 * its last run, and so its return, is on this one */
		f->ctx.uc_link = &workers[(i + ROUNDS) % WORKERS].sched;
		makecontext(&f->ctx, (void (*)(void))fiber_main, 1, i);
		post(&workers[i % WORKERS], f);
	}
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&workers[i].th, NULL, worker, &workers[i]);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(workers[i].th, NULL);
	for (int i = 0; i < FIBERS; i++) {
		print_fiber(i, fibers[i].ran, fibers[i].n_ran, fibers[i].acc);
		free(fibers[i].stack);
	}
	return 0;
}
