/* Jumps out of coroutines, shared-stack coroutines, and a thread whose
 * first written call is on a coroutine's stack.
 *   jump:   3 rounds of a coroutine, made on the same stack each round and
 *           entered from main -> a -> b, that longjmps out of y() back to
 *           a(), which goes on: the jump leaves x and y on the coroutine's
 *           stack and b on the main stack
 *   shared: two coroutines on one shared stack (cloudwu/coroutine style:
 *           a suspended one's stack is saved by memcpy, a new one is made
 *           with makecontext on the same stack, and the old one copied back
 *           and resumed later)
 *   pingpong: main and a coroutine hand control to each other by setjmp
 *           and longjmp, each resuming a buffer set on the other's stack
 *   first:  two coroutines on their own stacks, the first suspended in
 *           job(1) while the second runs; recorded with -F job, the
 *           thread's first written call is on the first coroutine's stack
 *   waiting: a scheduler that runs two coroutines by _setjmp/_longjmp
 *           alone (each entered first by setcontext): the first yields
 *           once and waits while the second yields WAIT_ROUNDS times, then
 *           both run to their end; each yields from wtail(), which wstep()
 *           reaches by a tail call at -O2 (one return slot for both)
 *   many:   MANY coroutines, each on a stack of its own, yield once by
 *           _longjmp and are resumed to their end: more stacks left than
 *           the runtime's registry of parked stacks holds */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
static ucontext_t mainc, co;
static char stack[65536];
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }

static jmp_buf jb;
__attribute__((noinline)) void y(void) { leaf(1); longjmp(jb, 1); }
__attribute__((noinline)) void x(void) { y(); }
__attribute__((noinline)) void b(void) { swapcontext(&mainc, &co); leaf(2); }
__attribute__((noinline)) void a(void) { if (!setjmp(jb)) b(); leaf(3); }

#define STK (256 * 1024)
static char shared[STK] __attribute__((aligned(16)));
struct sco { ucontext_t ctx; char *save; size_t size; int status; int arg; };
static struct sco cos[2];
static int running = -1;
__attribute__((noinline)) void save_stack(struct sco *c, char *top)
{
	char here = 0;
	c->size = (size_t)(top - &here);
	c->save = realloc(c->save, c->size);
	memcpy(c->save, &here, c->size);
}
__attribute__((noinline)) void yield_(void)
{
	struct sco *c = &cos[running];
	save_stack(c, shared + STK);
	c->status = 2;
	running = -1;
	swapcontext(&c->ctx, &mainc);
}
__attribute__((noinline)) void work(int id) { leaf(id); yield_(); leaf(id + 10); yield_(); leaf(id + 20); }
__attribute__((noinline)) void body(int id) { work(id); }
__attribute__((no_instrument_function)) static void mainfunc(void)
{
	int id = running;
	body(cos[id].arg);
	cos[id].status = 0;
	running = -1;
}
__attribute__((noinline)) void resume(int id)
{
	struct sco *c = &cos[id];
	running = id;
	if (c->status == 1) {
		getcontext(&c->ctx);
		c->ctx.uc_stack.ss_sp = shared;
		c->ctx.uc_stack.ss_size = STK;
		c->ctx.uc_link = &mainc;
		c->status = 3;
		makecontext(&c->ctx, mainfunc, 0);
	} else {
		memcpy(shared + STK - c->size, c->save, c->size);
		c->status = 3;
	}
	swapcontext(&mainc, &c->ctx);
}

static ucontext_t wa, wb;
static char sa[65536], sb[65536];
__attribute__((noinline)) void ya(void) { swapcontext(&wa, &mainc); }
__attribute__((noinline)) void job(int w) { leaf(w); if (w == 1) ya(); leaf(w); }
__attribute__((noinline)) void fa(void) { job(1); }
__attribute__((noinline)) void fb(void) { job(2); }
static jmp_buf mbuf, cbuf;
static ucontext_t pc;
static char pstk[65536];
static volatile int pdone;
__attribute__((noinline)) void co_yield(void) { if (!setjmp(cbuf)) longjmp(mbuf, 1); }
__attribute__((noinline)) void cwork(int i) { leaf(i); co_yield(); leaf(i + 100); }
__attribute__((noinline)) void cbody(void) { for (int i = 0; i < 3; i++) cwork(i); pdone = 1; longjmp(mbuf, 1); }
__attribute__((noinline)) void presume(void) { if (!setjmp(mbuf)) longjmp(cbuf, 1); }
__attribute__((noinline)) void pstart(void) { if (!setjmp(mbuf)) swapcontext(&mainc, &pc); }

#define WAIT_ROUNDS 1500
struct wco { jmp_buf env; ucontext_t uc; char stack[65536]; int started, done, rounds; };
static struct wco wcos[2];
static struct wco *wcur;
static jmp_buf wsched;
__attribute__((noinline)) void wyield(void) { if (!_setjmp(wcur->env)) _longjmp(wsched, 1); }
__attribute__((noinline)) int wtail(int i) { leaf(i); wyield(); return leaf(i) * 3; }
__attribute__((noinline)) int wstep(int i) { return wtail(i + 1); }
__attribute__((noinline)) void wbody(void)
{
	struct wco *c = wcur;
	for (int i = 0; i < c->rounds; i++)
		if (wstep(i) < 0)
			abort();
	c->done = 1;
	_longjmp(wsched, 1);
}
__attribute__((noinline)) void wresume(struct wco *c)
{
	wcur = c;
	if (!c->started) {
		c->started = 1;
		getcontext(&c->uc);
		c->uc.uc_stack.ss_sp = c->stack;
		c->uc.uc_stack.ss_size = sizeof(c->stack);
		c->uc.uc_link = NULL;
		makecontext(&c->uc, wbody, 0);
		setcontext(&c->uc);
	}
	_longjmp(c->env, 1);
}

#define MANY 4500
#define MANY_STK (64 * 1024)   /* (stacks nearer than 32 KiB may be taken for one) */
static jmp_buf menv;
static ucontext_t muc;
__attribute__((noinline)) void myield(void) { if (!_setjmp(menv)) _longjmp(wsched, 1); }
__attribute__((noinline)) void mwork(int i) { leaf(i); myield(); leaf(i); }
__attribute__((noinline)) void mbody(void) { mwork(1); _longjmp(wsched, 2); }

/* (a macro: -fpatchable-function-entry instruments every function) */
#define mk(c, s, fn) do {                        \
		getcontext(c);                   \
		(c)->uc_stack.ss_sp = (s);       \
		(c)->uc_stack.ss_size = 65536;   \
		(c)->uc_link = &mainc;           \
		makecontext((c), (fn), 0);       \
	} while (0)

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "jump";
	if (!strcmp(mode, "jump")) {
		for (int i = 0; i < 3; i++) {
			mk(&co, stack, x);
			a();
		}
	} else if (!strcmp(mode, "pingpong")) {
		mk(&pc, pstk, cbody);
		pstart();
		while (!pdone) {
			leaf(50);
			presume();
		}
	} else if (!strcmp(mode, "shared")) {
		cos[0].status = cos[1].status = 1;
		cos[1].arg = 100;
		for (int alive = 1; alive;) {
			alive = 0;
			for (int i = 0; i < 2; i++)
				if (cos[i].status) {
					resume(i);
					alive = 1;
				}
		}
	} else if (!strcmp(mode, "many")) {
		char *arena = mmap(NULL, (size_t)MANY * MANY_STK, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (arena == MAP_FAILED)
			return 1;
		for (int i = 0; i < MANY; i++) {
			if (!_setjmp(wsched)) {
				getcontext(&muc);
				muc.uc_stack.ss_sp = arena + (size_t)i * MANY_STK;
				muc.uc_stack.ss_size = MANY_STK;
				muc.uc_link = NULL;
				makecontext(&muc, mbody, 0);
				setcontext(&muc);
			}
			if (!_setjmp(wsched))
				_longjmp(menv, 1);
		}
	} else if (!strcmp(mode, "waiting")) {
		wcos[0].rounds = 2;
		wcos[1].rounds = WAIT_ROUNDS;
		/* the first coroutine's one yield, then the second's all */
		if (!_setjmp(wsched))
			wresume(&wcos[0]);
		while (!wcos[1].done)
			if (!_setjmp(wsched))
				wresume(&wcos[1]);
		while (!wcos[0].done)
			if (!_setjmp(wsched))
				wresume(&wcos[0]);
	} else {
		mk(&wa, sa, fa);
		mk(&wb, sb, fb);
		swapcontext(&mainc, &wa);
		leaf(7);
		swapcontext(&mainc, &wb);
		swapcontext(&mainc, &wa);
	}
	leaf(4);
	printf("done\n");
	return 0;
}
