/* Losses that reached a thread's stream but not the file header, so that
 * `info`'s totals missed them:
 *   many (the default): 4141 coroutines parked inside traced frames, more
 *     machine stacks than the registry parks at once (4096, the thread's
 *     own among them): under -pg the 45 past it aborted the program
 *     ("shadow stack out of sync"); now their calls are left out, 4 events
 *     each (coroutine and park), and counted;
 *   nomem: no memory left (RLIMIT_AS) when the coroutine first runs: under
 *     -pg its stack gets no shadow stack, its calls are left out and
 *     counted; under -finstrument-functions nothing is needed, nothing is
 *     lost; nomem-ok is the same run without the limit;
 *   noshadow (-pg): a thread's first traced call finds no memory for its
 *     shadow stack: the call is left out, entry and exit, and counted;
 *     noshadow-ok is the same without the limit;
 *   badaddr: the hooks called by hand with an address no function has:
 *     both events are lost, and counted. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <ucontext.h>

#define N 4141      /* 45 past the 4096 stacks the registry parks at once */
#define STACK (64 << 10)     /* (stacks nearer than 32 KiB are not told apart: doc/safety.md) */

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static ucontext_t main_ctx, ctx[N];
static int turn;

__attribute__((noinline)) void park(int i)
{
	swapcontext(&ctx[i], &main_ctx);
}

__attribute__((noinline)) void coroutine(void)
{
	park(turn);
}

__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) static void make(int i, char *stack)
{
	getcontext(&ctx[i]);
	ctx[i].uc_stack.ss_sp = stack;
	ctx[i].uc_stack.ss_size = STACK;
	ctx[i].uc_link = &main_ctx;
	makecontext(&ctx[i], coroutine, 0);
}

/* no address space left for anything new (limit: 0, nothing done but the
 * same calls); 0, or -1 */
__attribute__((noinline)) static int no_more_memory(struct rlimit *was, int limit)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f || fscanf(f, "%lu", &pages) != 1 || getrlimit(RLIMIT_AS, was))
		return -1;
	fclose(f);
	struct rlimit tight = { pages * 4096 + 4096, was->rlim_max };
	return limit ? setrlimit(RLIMIT_AS, &tight) : 0;
}

static pthread_barrier_t limited;
static struct rlimit was;

/* the thread's first traced call comes once the limit is set */
__attribute__((no_instrument_function)) static void *worker(void *arg)
{
	pthread_barrier_wait(&limited);
	*(int *)arg = leaf(5);
	return NULL;
}

static int noshadow(int limit)
{
	pthread_t th;
	int r = 0;

	pthread_barrier_init(&limited, NULL, 2);
	if (pthread_create(&th, NULL, worker, &r))
		return 4;
	if (no_more_memory(&was, limit))
		return 5;
	pthread_barrier_wait(&limited);
	pthread_join(th, NULL);
	if (limit)
		setrlimit(RLIMIT_AS, &was);
	printf("noshadow %d\n", r);
	return 0;
}

/* heldmove: the registry full, fiber F is left for a new stack G, so its
 * thread holds it (no slot to park it in) and runs G untracked; meanwhile
 * another thread resumes F, whose -pg frames return there: their real
 * return addresses are in the first thread's held stack (before: "shadow
 * stack out of sync", abort). */
static ucontext_t f_ctx, g_ctx, t2_ctx;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage, fval;

__attribute__((no_instrument_function)) static void wait_stage(int want)
{
	pthread_mutex_lock(&mu);
	while (stage < want)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

__attribute__((no_instrument_function)) static void set_stage(int to)
{
	pthread_mutex_lock(&mu);
	stage = to;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

__attribute__((noinline)) void f_inner(void)
{
	swapcontext(&f_ctx, &g_ctx);    /* comes back on the other thread */
}

__attribute__((noinline)) void f_outer(void)
{
	f_inner();
	fval = leaf(7);
}

__attribute__((noinline)) void fiber(void)
{
	f_outer();
}

__attribute__((noinline)) void gfun(void)
{
	leaf(3);
	set_stage(1);           /* F is held: the other thread may take it */
	wait_stage(2);
	swapcontext(&g_ctx, &main_ctx);
}

__attribute__((no_instrument_function)) static void *taker(void *arg)
{
	(void)arg;
	wait_stage(1);
	swapcontext(&t2_ctx, &f_ctx);  /* F returns to t2_ctx (its uc_link) */
	set_stage(2);
	return NULL;
}

static int heldmove(char *stacks, char *fg)
{
	pthread_t th;
	if (pthread_create(&th, NULL, taker, NULL))
		return 4;
	/* every slot but one (main's) holds a coroutine parked in its frames */
	for (turn = 0; turn < 4095; turn++) {
		make(turn, stacks + (size_t)turn * STACK);
		swapcontext(&main_ctx, &ctx[turn]);
	}
	getcontext(&f_ctx);
	f_ctx.uc_stack.ss_sp = fg;
	f_ctx.uc_stack.ss_size = STACK;
	f_ctx.uc_link = &t2_ctx;
	makecontext(&f_ctx, fiber, 0);
	getcontext(&g_ctx);
	g_ctx.uc_stack.ss_sp = fg + 2 * STACK;
	g_ctx.uc_stack.ss_size = STACK;
	g_ctx.uc_link = &main_ctx;
	makecontext(&g_ctx, gfun, 0);
	swapcontext(&main_ctx, &f_ctx);  /* main parked: the registry is full */
	pthread_join(th, NULL);
	printf("heldmove %d\n", fval);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "many";
	char *stacks = malloc((size_t)N * STACK);
	int s = 0;

	if (!stacks)
		return 3;
	if (!strcmp(mode, "badaddr")) {
		__cyg_profile_func_enter((void *)0, (void *)0);
		__cyg_profile_func_exit((void *)0, (void *)0);
		printf("leaf %d\n", leaf(1));
		return 0;
	}
	if (!strcmp(mode, "heldmove")) {
		char *fg = malloc(4 * STACK);
		return fg ? heldmove(stacks, fg) : 3;
	}
	if (!strncmp(mode, "noshadow", 8))
		return noshadow(!strcmp(mode, "noshadow"));
	if (!strncmp(mode, "nomem", 5)) {
		int limit = !strcmp(mode, "nomem");
		make(0, stacks);
		turn = 0;
		if (no_more_memory(&was, limit))
			return 4;
		swapcontext(&main_ctx, &ctx[0]);
		if (limit)
			setrlimit(RLIMIT_AS, &was);
		swapcontext(&main_ctx, &ctx[0]);
		printf("nomem %d\n", leaf(2));
		return 0;
	}
	for (int i = 0; i < N; i++)
		make(i, stacks + (size_t)i * STACK);
	/* each coroutine runs until it parks; then each resumes and returns */
	for (turn = 0; turn < N; turn++)
		swapcontext(&main_ctx, &ctx[turn]);
	for (int i = 0; i < N; i++) {
		swapcontext(&main_ctx, &ctx[i]);
		s += leaf(i);
	}
	printf("many %d\n", s);
	return 0;
}
