/*
 * coro.c - coroutines (makecontext/swapcontext/setcontext): one shadow
 * stack per machine stack, and a SWITCH record (FNT_EXT_SWITCH) in the
 * trace at each switch, so that the frames of a suspended coroutine stay
 * open, in the runtime and in the reader, until it resumes and returns.
 *
 * A stack is named by its top (uc_stack.ss_sp + ss_size of the context
 * makecontext was given); 0 is the thread's own stack.  Which stack a
 * ucontext resumes on is kept in a process-wide table: makecontext (the
 * stub in arch/x86_64/coro.S) enters the context's new stack, swapcontext
 * enters the stack it leaves for the context it saves into.  A context
 * the table does not know (getcontext on the current stack) switches
 * nothing.  A coroutine that returns goes to its uc_link inside libc,
 * unseen: -pg/patchable exits find their stack by their slot
 * (fnt_coro_find_slot, from the return trampoline), and the reader's call
 * layer looks for an exit's frame on the parked stacks the same way.
 *
 * Stacks switched by code of the program's own (Boost.Context's
 * assembly, green threads) are found by the stack pointer instead: the
 * hooks take an event when it lies in a window around the stack pointers
 * seen on the stack in use (fnt_stack_check, runtime.h); anything else
 * comes here (fnt_stack_moved).  Within STACK_JUMP of them it is the same
 * stack, deeper or shallower; farther, the thread has switched stacks,
 * to the known stack whose pointers lie nearest, or to a new one named by
 * the first stack pointer seen on it.  A function whose frame is bigger
 * than STACK_JUMP makes its callees look like another stack: harmless,
 * since the thread switches back when they return (two SWITCH records).
 * Stacks nearer to each other than STACK_JUMP are not told apart.
 *
 * A stack pointer new to the window, near or far, may also be another
 * context running on this thread's TLS (a child cloned with CLONE_VM and
 * without CLONE_SETTLS by a raw system call, which no wrapper saw): the
 * thread id tells.  One that runs on the thread's own stack (a hand-made
 * vfork) is found by the pause before its first event instead
 * (fnt_foreign_event).  Such a context must not touch the thread's state:
 * its events are counted as lost and it writes nothing.
 *
 * None of this is on the hot path: only the wrappers, the exit
 * trampoline's rare path (a slot not at the top of the shadow stack), and
 * the hooks' rare path when the stack pointer leaves its window.
 */
#include <dlfcn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "runtime/runtime.h"

#define STACKS_MAX FNT_CORO_STACKS   /* machine stacks, per thread */
#define STACK_JUMP (32u << 10)   /* farther than this from the stack in use: another stack */
#define STACK_SLACK (8u << 10)   /* the hooks' window: the pointers seen, and this around them */
#define UNTRACKED ((uintptr_t)-1)  /* a stack the table had no room for (no stack is named so) */

struct fnt_coro {
	uintptr_t cur;           /* the stack now running */
	uint32_t n;
	struct fnt_coro_stack {
		uintptr_t id;
		struct fnt_shadow_entry *ss;
		uint32_t top, cap;
		uintptr_t min, max;  /* stack pointers seen on it (0: none yet) */
	} s[STACKS_MAX];
};

/* the hooks' window from the pointers seen on the stack in use; an empty
 * one (none seen yet) sends the next event here */
static void window_set(struct fnt_thread *t, uintptr_t min, uintptr_t max)
{
	t->stk_min = min;
	t->stk_max = max;
	t->stk_lo = max ? min - STACK_SLACK : 0;
	t->stk_span = max ? max + STACK_SLACK - t->stk_lo : 0;
}

static struct fnt_coro_stack *stack_slot(struct fnt_coro *c, uintptr_t id)
{
	struct fnt_coro_stack *reuse = NULL;
	for (uint32_t i = 0; i < c->n; i++) {
		if (c->s[i].id == id)
			return &c->s[i];
		if (!reuse && !c->s[i].top && c->s[i].id != c->cur)
			reuse = &c->s[i];
	}
	if (c->n < STACKS_MAX)
		reuse = &c->s[c->n++];
	else if (!reuse || (reuse->ss && fnt_no_clock))
		return NULL;    /* (seccomp strict: no munmap, clock.c) */
	else if (reuse->ss)     /* a finished coroutine's stack: its shadow array goes */
		munmap(reuse->ss, (size_t)reuse->cap * sizeof(struct fnt_shadow_entry));
	memset(reuse, 0, sizeof(*reuse));
	reuse->id = id;
	return reuse;
}

/* Make stack `to` the running one: park the thread's shadow stack and
 * stack-pointer window under the current one and take out the other's;
 * 1 if it switched (a SWITCH record is due).
 *
 * A stack the table has no room for (STACKS_MAX stacks with frames parked
 * on them) becomes UNTRACKED: no shadow stack, an empty window, so that
 * every event on it reaches fnt_stack_moved, which drops and counts it
 * (FNT_LOST_STACKS) until the thread is back on a stack it knows.  Its
 * -pg/patchable calls are then never swapped, so no return can miss its
 * frame.  With no memory for the table at all, the thread stops recording
 * (fnt_thread_stop): each of its events is counted as lost from then on. */
static int switch_stacks(struct fnt_thread *t, uintptr_t to)
{
	struct fnt_coro *c = t->coro;
	if (!c) {
		if (!to || fnt_no_clock)
			return 0;       /* (seccomp strict: no mmap; its events are dropped anyway) */
		void *m = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			fnt_thread_stop(t);
			return 0;
		}
		t->coro = c = m;
		c->n = 1;        /* s[0]: the thread's own stack, id 0 */
	}
	if (c->cur == to)
		return 0;
	if (c->cur != UNTRACKED) {
		struct fnt_coro_stack *from = stack_slot(c, c->cur);   /* (the running stack has its slot) */
		if (!from)
			return 0;
		from->ss = t->ss;
		from->top = t->ss_top;
		from->cap = t->ss_cap;
		from->min = t->stk_min;
		from->max = t->stk_max;
	}
	struct fnt_coro_stack *next = to == UNTRACKED ? NULL : stack_slot(c, to);
	if (!next) {
		t->ss = NULL;
		t->ss_top = t->ss_cap = 0;
		window_set(t, 0, 0);
		c->cur = UNTRACKED;
		return 0;
	}
	t->ss = next->ss;
	t->ss_top = next->top;
	t->ss_cap = next->cap;
	window_set(t, next->min, next->max);
	c->cur = to;
	return 1;
}

/* ...under the guard, so that a signal handler that lands meanwhile pushes
 * nothing onto a half-switched stack (its calls are dropped and counted);
 * the SWITCH record is written unless the guard was held already (a
 * handler inside a hook). */
static void switch_to(struct fnt_thread *t, uintptr_t to)
{
	uint32_t held = t->busy;
	t->busy = 1;
	__asm__ volatile("" ::: "memory");
	if (switch_stacks(t, to) && !held)
		fnt_put_switch(t, to);
	__asm__ volatile("" ::: "memory");
	t->busy = held;
}

/* An exit whose slot is not on the current shadow stack: a coroutine
 * finished and libc went to its uc_link.  Switch to the stack whose top
 * frame has that slot; 1 if there is one. */
int fnt_coro_find_slot(struct fnt_thread *t, uintptr_t slot)
{
	struct fnt_coro *c = t->coro;
	if (!c)
		return 0;
	for (uint32_t i = 0; i < c->n; i++) {
		struct fnt_coro_stack *s = &c->s[i];
		if (s->id != c->cur && s->top && s->ss[s->top - 1].slot == slot) {
			switch_to(t, s->id);
			return 1;
		}
	}
	return 0;
}

/* sp is on the stack in use: take it into the window, under the guard */
static void window_add(struct fnt_thread *t, uintptr_t sp)
{
	t->busy = 1;
	__asm__ volatile("" ::: "memory");
	window_set(t, t->stk_max && t->stk_min < sp ? t->stk_min : sp, t->stk_max > sp ? t->stk_max : sp);
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

void fnt_foreign_lost(unsigned n)
{
	struct fnt_file_header *h = fnt_trace_header();
	if (h)
		__atomic_fetch_add(&h->reserved[FNT_RES_LOST_UNSAFE], n, __ATOMIC_RELAXED);
}

/* An event after a gap in the thread's events (runtime.h, FNT_GAP_TICKS),
 * with the guard held and nothing written yet: the first event of a
 * context that took this thread's place without leaving its stack (a
 * hand-made vfork's child), if the thread id says so.  A vfork child whose
 * parent the kernel shows waiting for it is lent the thread's state
 * (vfork.c, fnt_vfork_adopt: 2).  Any other has its event dropped and
 * counted, and the window emptied, so that each of its next events meets
 * fnt_stack_moved, which drops and counts it before it touches anything;
 * the thread finds the window empty at its next event and fills it again
 * (fnt_stack_moved, same stack).  Costs a gettid after each gap of the
 * thread's own. */
int fnt_foreign_event(struct fnt_thread *t, int is_exit)
{
	int unenter = fnt_filtering && !is_exit;
	if (!t->tid || fnt_gettid() == t->tid)
		return 0;
	if (fnt_vfork_adopt(t, unenter))
		return 2;               /* its own state and file now (vfork.c) */
	if (unenter)
		fnt_filter_unenter(&t->flt);
	fnt_foreign_lost(1);
	t->stk_lo = 0;
	t->stk_span = 0;
	return 1;
}

/* A stack pointer out of the hooks' window (see the top of this file). */
int fnt_stack_moved(struct fnt_thread *t, uintptr_t sp, unsigned events)
{
	if (unlikely(fnt_no_clock)) {
		/* seccomp strict: not a system call (gettid) more; the thread
		 * records nothing anyway (clock.c) */
		fnt_lost_events(t, FNT_LOST_NOCLOCK, events);
		return 1;
	}
	if (unlikely(!fnt_fork_mask))
		fnt_raw_fork_check();   /* a raw clone's child: its own file first */
	if (unlikely(t->vfork)) {
		/* a state lent to a hand-made vfork's child: its window stays
		 * empty, so that its parent is found here when it is back */
		int lent = fnt_vfork_lent(t, sp);
		if (lent == 1)
			return 0;
		if (lent < 0) {
			fnt_foreign_lost(events);
			return 1;
		}
	}
	/* Whatever the distance, a stack pointer new to the window may be
	 * another context on this TLS (a raw CLONE_VM child's stack can lie
	 * anywhere, just below the parent's own too): the thread id tells,
	 * before anything of the thread's is touched.  The window grows in
	 * STACK_SLACK steps, so a thread pays this a few times in its life.
	 * The window starts empty, so a thread's first event, written or
	 * not (record-time filters), comes here: it names the thread, before
	 * a child it clones could take its place. */
	uint32_t self = fnt_gettid();
	if (!t->tid) {
		/* named by the thread whose TLS this is (threads.c): a raw
		 * clone's child may be the first to come here */
		t->tid = fnt_tls_owner();
		if (self != t->tid && !t->busy && fnt_vfork_adopt(t, 0)) {
			t->busy = 0;    /* (adopt takes the guard as its callers hold it) */
			return 0;       /* a hand-made vfork's child: its own state and file now (vfork.c) */
		}
	}
	if (self != t->tid) {
		/* not this thread: a context on its TLS, which must leave it alone */
		fnt_foreign_lost(events);
		return 1;
	}
	struct fnt_coro *c = t->coro;
	int untracked = c && c->cur == UNTRACKED;   /* (its window is empty: every event comes here) */
	if (!untracked && (!t->stk_max || (sp + STACK_JUMP >= t->stk_min && sp <= t->stk_max + STACK_JUMP))) {
		/* the same stack, deeper or shallower (or the first event) */
		if (!t->busy)
			window_add(t, sp);
		return 0;
	}
	if (t->busy)
		return 0;               /* (a handler inside a hook: the event is dropped anyway) */
	uintptr_t to = sp | 1, best = STACK_JUMP + 1;
	for (uint32_t i = 0; c && i < c->n; i++) {
		struct fnt_coro_stack *s = &c->s[i];
		uintptr_t d = sp < s->min ? s->min - sp : sp > s->max ? sp - s->max : 0;
		if (s->id != c->cur && s->max && d < best) {
			best = d;
			to = s->id;
		}
	}
	switch_to(t, to);
	if (t->coro && t->coro->cur == UNTRACKED) {
		/* a stack the table has no room for (switch_stacks) */
		fnt_lost_events(t, FNT_LOST_STACKS, events);
		return 1;
	}
	if (!t->coro || t->coro->cur != to)
		return 0;               /* (no memory for the table: the thread stopped recording) */
	window_add(t, sp);
	return 0;
}

#ifndef FNT_STATIC_ARCHIVE

#define CTX_MAX 4096u        /* ucontexts known, per process (open addressing) */

static struct {
	uintptr_t ctx;           /* the ucontext_t's address, 0: free */
	uintptr_t stack;         /* the stack it resumes on */
} ctx_map[CTX_MAX];

static uint32_t ctx_hash(uintptr_t ctx)
{
	return (uint32_t)(((uint64_t)ctx * 0x9E3779B97F4A7C15ull) >> 52) & (CTX_MAX - 1);
}

static void ctx_set(uintptr_t ctx, uintptr_t stack)
{
	uint32_t h = ctx_hash(ctx);
	for (uint32_t i = 0; i < CTX_MAX; i++, h = (h + 1) & (CTX_MAX - 1)) {
		uintptr_t k = __atomic_load_n(&ctx_map[h].ctx, __ATOMIC_ACQUIRE);
		if (!k) {
			uintptr_t zero = 0;
			if (!__atomic_compare_exchange_n(&ctx_map[h].ctx, &zero, ctx, 0, __ATOMIC_ACQ_REL,
							 __ATOMIC_ACQUIRE))
				k = zero;
			else
				k = ctx;
		}
		if (k == ctx) {
			__atomic_store_n(&ctx_map[h].stack, stack, __ATOMIC_RELEASE);
			return;
		}
	}
	/* full: that context switches nothing (-pg exits still find their stack by slot) */
}

static int ctx_get(uintptr_t ctx, uintptr_t *stack)
{
	uint32_t h = ctx_hash(ctx);
	for (uint32_t i = 0; i < CTX_MAX; i++, h = (h + 1) & (CTX_MAX - 1)) {
		uintptr_t k = __atomic_load_n(&ctx_map[h].ctx, __ATOMIC_ACQUIRE);
		if (!k)
			return 0;
		if (k == ctx) {
			*stack = __atomic_load_n(&ctx_map[h].stack, __ATOMIC_ACQUIRE);
			return 1;
		}
	}
	return 0;
}

static void *real_fn(void **cache, const char *name)
{
	void *f = __atomic_load_n(cache, __ATOMIC_RELAXED);
	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, f, __ATOMIC_RELAXED);
	}
	return f;
}

static void *real_make, *real_swap, *real_set;

/* from the makecontext stub: the context now starts on its own stack */
void *fnt_coro_made(ucontext_t *ucp) FNT_HIDDEN;
void *fnt_coro_made(ucontext_t *ucp)
{
	if (ucp && ucp->uc_stack.ss_sp)
		ctx_set((uintptr_t)ucp, (uintptr_t)ucp->uc_stack.ss_sp + ucp->uc_stack.ss_size);
	return real_fn(&real_make, "makecontext");
}

/* Enter ucp: a context the table knows switches stacks.  One it does not
 * know, whose stack pointer lies on the stack in use (the hooks' window),
 * was saved there by getcontext: going back to it leaves the frames since,
 * as a longjmp does (setjmp.c). */
static void enter_ctx(struct fnt_thread *t, const ucontext_t *ucp)
{
	uintptr_t to;
	if (!ucp)
		return;
	if (ctx_get((uintptr_t)ucp, &to))
		switch_to(t, to);
	else if (t->stk_max && (uintptr_t)ucp->uc_mcontext.gregs[REG_RSP] - t->stk_lo <= t->stk_span)
		fnt_note_setcontext(ucp);
}

FNT_EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	struct fnt_thread *t = &fnt_self;
	int (*f)(ucontext_t *, const ucontext_t *) =
		(int (*)(ucontext_t *, const ucontext_t *))real_fn(&real_swap, "swapcontext");
	if (oucp)
		ctx_set((uintptr_t)oucp, t->coro ? t->coro->cur : 0);
	enter_ctx(t, ucp);
	return f(oucp, ucp);
}

FNT_EXPORT int setcontext(const ucontext_t *ucp)
{
	int (*f)(const ucontext_t *) = (int (*)(const ucontext_t *))real_fn(&real_set, "setcontext");
	enter_ctx(&fnt_self, ucp);
	return f(ucp);
}

#endif
