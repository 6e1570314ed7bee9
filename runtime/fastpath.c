/*
 * fastpath.c - the common case of the return-address-swap modes (-pg
 * -mfentry, -fpatchable-function-entry, -P, library calls), for the
 * trampolines in arch/x86_64/fentry.S to try first.
 *
 * Every call these trampolines see used to go through the general C side
 * (fentry.c) with every call-clobbered register saved around it, the 16
 * vector registers included, on entry and on exit.  Most calls need
 * nothing of it: recording is on, no filter, no argument to capture, the
 * event fits the current chunk, the function is in the chunk's cache, the
 * thread is on its own stack and its shadow stack has room.  For those,
 * the functions here do the whole entry or exit: the event, and the shadow
 * stack's push or pop with the return-address swap.
 *
 * They are built with -mgeneral-regs-only and no_caller_saved_registers
 * (see the Makefile): the compiler saves exactly the registers they use,
 * and they use no vector register, so a trampoline saves only the ones it
 * passes arguments in.  They call nothing: each either finishes its event
 * or changes nothing at all and answers "slow", and the trampoline then
 * takes the general path, which redoes the event from the start.
 */
#include "fntrace.h"
#include "format/argspec.h"
#include "runtime/event.h"
#include "runtime/fentry.h"

#ifndef FNT_STATIC_ARCHIVE

#define FAST __attribute__((no_caller_saved_registers, used)) FNT_HIDDEN

int fnt_fast_enter(uintptr_t fn, uintptr_t *slot) FAST;
int fnt_fentry_fast(uintptr_t ret_in_fn, uintptr_t *slot) FAST;
int fnt_prologue_fast(uintptr_t *quad, uintptr_t *slot) FAST;
uintptr_t fnt_exit_fast(uintptr_t sp) FAST;

/* Whether nothing process-wide asks for the general path: recording on,
 * no record-time filter, no argument spec, no call sites. */
static inline __attribute__((always_inline)) int fast_allowed(void)
{
	return !(fnt_filtering | (uint32_t)fnt_paused | fnt_argspec_count | (fnt_flags & FNT_FLAG_CALLSITE));
}

/* The entry of fn, whose return address is at *slot: 0 when recorded and
 * swapped, 1 when nothing was done. */
static inline __attribute__((always_inline)) int enter(uintptr_t fn, uintptr_t *slot)
{
	struct fnt_thread *t = &fnt_self;
	uint8_t *p;

	if (unlikely(!fast_allowed()))
		return 1;
	/* the thread's own stack (fnt_stack_check's test, without its rare path) */
	if (unlikely((uintptr_t)slot - t->stk_lo > (t->stk_span & fnt_fork_mask)))
		return 1;
	if (unlikely(!t->ss || t->ss_top == t->ss_cap || t->busy))
		return 1;
	p = t->pos;
	if (unlikely(p >= t->limit || !fnt_use_tsc))
		return 1;
	t->busy = 1;
	barrier();
	if (unlikely(fnt_event_put(t, p, fn, __builtin_ia32_rdtsc(), 0))) {
		barrier();
		t->busy = 0;
		return 1;
	}
	fnt_shadow_push(t, fn, slot, NULL, 1);
	barrier();
	t->busy = 0;
	return 0;
}

int fnt_fast_enter(uintptr_t fn, uintptr_t *slot)
{
	return enter(fn, slot);
}

/* __fentry__: from the address just past the call in the function */
int fnt_fentry_fast(uintptr_t ret_in_fn, uintptr_t *slot)
{
	if (unlikely(fentry_saves_chain(ret_in_fn)))
		return 1;
	return enter(fentry_fn(ret_in_fn), slot);
}

/* -P: the trampoline's `.quad fn`, which the return then skips */
int fnt_prologue_fast(uintptr_t *quad, uintptr_t *slot)
{
	return enter(*quad, slot);
}

/* The return trampoline, with sp the caller's %rsp after the return: the
 * real return address once the exit is recorded and popped, or 0 when
 * nothing was done. */
uintptr_t fnt_exit_fast(uintptr_t sp)
{
	struct fnt_thread *t = &fnt_self;
	struct fnt_shadow_entry *e;
	uint8_t *p;
	uint32_t top = t->ss_top;

	if (unlikely(!top || !fast_allowed() || t->busy))
		return 0;
	e = &t->ss[top - 1];
	/* frames to drop first, another stack, a return value to capture */
	if (unlikely(e->slot != sp - 8 || !e->written || e->plan))
		return 0;
	if (unlikely(sp - t->stk_lo > (t->stk_span & fnt_fork_mask)))
		return 0;
	p = t->pos;
	if (unlikely(p >= t->limit || !fnt_use_tsc))
		return 0;
	t->busy = 1;
	barrier();
	if (unlikely(fnt_event_put(t, p, e->fn, __builtin_ia32_rdtsc(), 1))) {
		barrier();
		t->busy = 0;
		return 0;
	}
	uintptr_t ret = e->ret;
	t->ss_top = top - 1;
	barrier();
	t->busy = 0;
	return ret;
}

#endif
