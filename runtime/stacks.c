/*
 * stacks.c - the machine stacks of coroutines (makecontext/swapcontext).
 *
 * In the -pg and patchable modes each traced frame's real return address
 * sits on the thread's shadow stack, found again at the return by its slot.
 * A coroutine suspends its frames on its own machine stack while the thread
 * runs frames on another: the shadow stack then holds frames of several
 * machine stacks interleaved, and a return on one stack must not take the
 * suspended frames of another for frames left by a longjmp.  So the
 * runtime learns the coroutine stacks at each swapcontext/setcontext (the
 * target's uc_stack, as makecontext set it), and the return trampoline's
 * rare path (runtime/fentry.c) asks whether two slots share a stack.
 * The table is process-wide, append-only, and never locked: a slot is
 * claimed with one atomic add and published when both bounds are written.
 */
#include <dlfcn.h>
#include <ucontext.h>
#include "runtime/runtime.h"

#define STACKS_MAX 1024

static struct {
	uintptr_t lo, hi;       /* hi == 0: being written */
} stacks[STACKS_MAX];
static uint32_t stacks_n;

/* Index + 1 of the coroutine stack holding addr; 0: none (the thread's own) */
static uint32_t stack_of(uintptr_t addr)
{
	uint32_t n = __atomic_load_n(&stacks_n, __ATOMIC_ACQUIRE);
	if (n > STACKS_MAX)
		n = STACKS_MAX;
	for (uint32_t i = n; i-- > 0;) {    /* newest first: a reused address range */
		uintptr_t hi = __atomic_load_n(&stacks[i].hi, __ATOMIC_ACQUIRE);
		if (hi && addr >= stacks[i].lo && addr < hi)
			return i + 1;
	}
	return 0;
}

int fnt_stacks_known(void)
{
	return __atomic_load_n(&stacks_n, __ATOMIC_RELAXED) != 0;
}

int fnt_stack_same(uintptr_t a, uintptr_t b)
{
	return stack_of(a) == stack_of(b);
}

#ifndef FNT_STATIC_ARCHIVE
/* (a static program has no fentry mode, and no RTLD_NEXT to reach libc's) */
static void stack_note(const ucontext_t *uc)
{
	uintptr_t lo = (uintptr_t)uc->uc_stack.ss_sp, hi = lo + uc->uc_stack.ss_size;
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];

	/* only a stack that holds the context's own %rsp: a context saved by
	 * getcontext or swapcontext may carry garbage in uc_stack */
	if (!lo || uc->uc_stack.ss_size < 4096 || hi < lo || sp < lo || sp > hi)
		return;
	uint32_t k = stack_of(lo);
	if (k && stacks[k - 1].lo == lo && stacks[k - 1].hi == hi)
		return;
	uint32_t i = __atomic_fetch_add(&stacks_n, 1, __ATOMIC_ACQ_REL);
	if (i >= STACKS_MAX)
		return;         /* full: its frames are treated as the thread's own */
	stacks[i].lo = lo;
	__atomic_store_n(&stacks[i].hi, hi, __ATOMIC_RELEASE);
}

FNT_EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	static int (*real)(ucontext_t *, const ucontext_t *);
	int (*f)(ucontext_t *, const ucontext_t *) = __atomic_load_n(&real, __ATOMIC_RELAXED);
	if (!f) {
		f = (int (*)(ucontext_t *, const ucontext_t *))dlsym(RTLD_NEXT, "swapcontext");
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	if (ucp)
		stack_note(ucp);
	return f ? f(oucp, ucp) : -1;
}

FNT_EXPORT int setcontext(const ucontext_t *ucp)
{
	static int (*real)(const ucontext_t *);
	int (*f)(const ucontext_t *) = __atomic_load_n(&real, __ATOMIC_RELAXED);
	if (!f) {
		f = (int (*)(const ucontext_t *))dlsym(RTLD_NEXT, "setcontext");
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	if (ucp)
		stack_note(ucp);
	return f ? f(ucp) : -1;
}
#endif
