/*
 * fastpath.c - the second tier of the return-address-swap modes (-pg
 * -mfentry, -fpatchable-function-entry, -P, library calls): the common
 * entry and exit when some function has values to capture (-A, -R,
 * --auto-args), for the trampolines in arch/x86_64/fentry.S.
 *
 * Every call these trampolines see used to go through the general C side
 * (fentry.c) with every call-clobbered register saved around it, the 16
 * vector registers included, on entry and on exit.  Most calls need
 * nothing of it: recording is on, no filter, the event fits the current
 * chunk, the function is in the chunk's cache, the thread is on its own
 * stack and its shadow stack has room.  When no function has a spec, the
 * trampolines' first tier does those whole in assembly (ENTER_ASM,
 * EXIT_ASM).  When some function has one, they come here with the nine
 * general registers: the event with its ARGS or RETVAL record of register
 * and stack words, and the shadow stack's push or pop with the swap.
 *
 * These functions are built with -mgeneral-regs-only (see the Makefile):
 * they use no vector register, so the nine call-clobbered general
 * registers, which the trampolines push before calling them (GP_PUSH), are
 * all an ordinary call can change; the compiler saves the callee-saved ones
 * it uses.  (They were no_caller_saved_registers once, when the
 * trampolines saved only their arguments: with GP_PUSH that saved the nine
 * twice.)  They call nothing: each either finishes its event or changes
 * nothing at all and answers "slow", and the trampoline then takes the
 * general path, which redoes the event from the start.
 */
#include "fntrace.h"
#include "format/argspec.h"
#include "runtime/event.h"
#include "runtime/fentry.h"
#include "runtime/asm-offsets.h"

#include <stddef.h>
/* the field offsets fentry.S's assembly uses (runtime/asm-offsets.h) */
#define AT(type, field, off) _Static_assert(offsetof(struct type, field) == off, "asm-offsets.h: " #field)
AT(fnt_thread, pos, T_POS);
AT(fnt_thread, limit, T_LIMIT);
AT(fnt_thread, last, T_LAST);
AT(fnt_thread, prev_new, T_PREV_NEW);
AT(fnt_thread, depth, T_DEPTH);
AT(fnt_thread, busy, T_BUSY);
AT(fnt_thread, stk_lo, T_STK_LO);
AT(fnt_thread, stk_span, T_STK_SPAN);
AT(fnt_thread, cache, T_CACHE);
AT(fnt_thread, cache_fifo, T_FIFO);
AT(fnt_thread, ss, T_SS);
AT(fnt_thread, ss_top, T_SS_TOP);
AT(fnt_thread, ss_cap, T_SS_CAP);
_Static_assert(sizeof(((struct fnt_thread *)0)->ss_top) == 4, "asm-offsets.h: ss_top is 32-bit");
AT(fnt_shadow_entry, ret, E_RET);
AT(fnt_shadow_entry, slot, E_SLOT);
AT(fnt_shadow_entry, fn, E_FN);
AT(fnt_shadow_entry, plan, E_PLAN);
AT(fnt_shadow_entry, written, E_WRITTEN);
_Static_assert(FNT_K_NEW == 2 && FNT_VARINT_MAX == (1ull << 56) - 1, "fentry.S: EVENT_ASM's NEW event");
AT(fnt_shadow_entry, depth, E_DEPTH);
_Static_assert(E_DEPTH == E_WRITTEN + 4, "fentry.S: ENTER_ASM writes written and depth in one store");
_Static_assert(sizeof(struct fnt_shadow_entry) == E_SIZE, "asm-offsets.h: shadow entry size");
_Static_assert(FNT_GAP_TICKS == A_GAP_TICKS, "asm-offsets.h: gap");
_Static_assert(FNT_FAST_ARGS == A_FAST_ARGS, "asm-offsets.h: fnt_fast_off's bit for a spec");
_Static_assert(64 - FNT_CACHE_BITS == A_CACHE_SHIFT, "asm-offsets.h: cache bits");
_Static_assert(FNT_K_EXIT == 1 && FNT_K_ENTRY == 0, "asm-offsets.h: event kinds");

#ifndef FNT_STATIC_ARCHIVE

#define FAST __attribute__((used)) FNT_HIDDEN

int fnt_args_fast(const uint64_t *gp, uintptr_t fn, uintptr_t *slot) FAST;
int fnt_fentry_args_fast(const uint64_t *gp, uintptr_t ret_in_fn, uintptr_t *slot) FAST;
int fnt_prologue_args_fast(const uint64_t *gp, uintptr_t *quad, uintptr_t *slot) FAST;
uintptr_t fnt_exit_ret_fast(const uint64_t *gp, uintptr_t sp) FAST;

/* Whether nothing process-wide asks for the general path: recording on,
 * no record-time filter, no call sites, the cycle counter in use (the
 * word the assembly tier reads, runtime.h, but for its bit that sends
 * the trampolines here). */
static inline __attribute__((always_inline)) int fast_allowed(void)
{
	return !(fnt_fast_off & ~FNT_FAST_ARGS);
}

/* With nothing special about the thread: on its own stack (fnt_stack_check's
 * test, without its rare path), its shadow stack there with room, the
 * guard free and room in the chunk. */
static inline __attribute__((always_inline)) int thread_ready(struct fnt_thread *t, uintptr_t sp, int push)
{
	if (unlikely(sp - t->stk_lo > (t->stk_span & fnt_fork_mask)))
		return 0;
	if (unlikely(push && (!t->ss || t->ss_top == t->ss_cap)))
		return 0;
	return !t->busy && t->pos < t->limit;
}

/* With the thread ready: the entry event (with its ARGS record when gp is
 * given, from the registers there), the shadow push and the swap; 0, or 1
 * when nothing was done. */
static inline __attribute__((always_inline)) int
arrive(struct fnt_thread *t, uintptr_t fn, uintptr_t *slot, const struct fnt_argplan *plan, const uint64_t *gp)
{
	int ok;

	t->busy = 1;
	barrier();
	ok = gp ? values_fast(t, &plan->args, fn, gp, slot, 0, 1)
		: !fnt_event_put(t, t->pos, fn, __builtin_ia32_rdtsc(), 0);
	if (ok)
		fnt_shadow_push(t, fn, slot, plan, 1);
	barrier();
	t->busy = 0;
	return !ok;
}

/* The same when some function has values to capture (the trampolines then
 * come here first, with gp the general registers in struct fnt_regs order):
 * fn's ARGS record too, its values read from gp and the stack, when every
 * value is a word of those (no string, no xmm).  0, or 1 when nothing was
 * done. */
static inline __attribute__((always_inline)) int enter_args(const uint64_t *gp, uintptr_t fn, uintptr_t *slot)
{
	struct fnt_thread *t = &fnt_self;
	const struct fnt_argplan *plan;

	if (unlikely(!fast_allowed()) || !thread_ready(t, (uintptr_t)slot, 1))
		return 1;
	if (!(plan = fnt_argspec_find(fn)))
		return arrive(t, fn, slot, NULL, NULL);
	if (!plan->args.fast || plan->args.n_str || !plan->args.gp)
		return 1;
	return arrive(t, fn, slot, plan, gp);
}

int fnt_args_fast(const uint64_t *gp, uintptr_t fn, uintptr_t *slot)
{
	return enter_args(gp, fn, slot);
}

/* __fentry__: from the address just past the call in the function */
int fnt_fentry_args_fast(const uint64_t *gp, uintptr_t ret_in_fn, uintptr_t *slot)
{
	if (unlikely(fentry_saves_chain(ret_in_fn)))
		return 1;
	return enter_args(gp, fentry_fn(ret_in_fn), slot);
}

/* -P: the `.quad fn` just before the trampoline's call */
int fnt_prologue_args_fast(const uint64_t *gp, uintptr_t *quad, uintptr_t *slot)
{
	return enter_args(gp, *quad, slot);
}

/* The frame the return trampoline pops, with sp the caller's %rsp after
 * the return: NULL when it is not the plain case (frames to drop first,
 * another stack, not written). */
static inline __attribute__((always_inline)) struct fnt_shadow_entry *exit_frame(struct fnt_thread *t, uintptr_t sp)
{
	uint32_t top = t->ss_top;
	struct fnt_shadow_entry *e;

	if (unlikely(!top || !fast_allowed()))
		return NULL;
	e = &t->ss[top - 1];
	if (unlikely(e->slot != sp - 8 || !(e->written & FNT_SS_WRITTEN) || !thread_ready(t, sp, 0)))
		return NULL;
	return e;
}

/* The exit event of e's frame (with its RETVAL record when gp is given)
 * and the pop: the real return address, or 0 when nothing was done. */
static inline __attribute__((always_inline)) uintptr_t
leave(struct fnt_thread *t, struct fnt_shadow_entry *e, const uint64_t *gp)
{
	uintptr_t ret = 0;
	int ok;

	t->busy = 1;
	barrier();
	ok = gp ? values_fast(t, &e->plan->ret, e->fn, gp, NULL, 1, 1)
		: !fnt_event_put(t, t->pos, e->fn, __builtin_ia32_rdtsc(), 1);
	if (ok) {
		ret = e->ret;
		t->ss_top--;
	}
	barrier();
	t->busy = 0;
	return ret;
}

/* The return trampoline when some function has values to capture: the
 * real return address once the exit (with this frame's RETVAL record, if
 * it has one) is recorded and popped; 0 when nothing was done. */
uintptr_t fnt_exit_ret_fast(const uint64_t *gp, uintptr_t sp)
{
	struct fnt_thread *t = &fnt_self;
	struct fnt_shadow_entry *e = exit_frame(t, sp);
	const struct fnt_argplan_list *l;

	if (!e)
		return 0;
	if (!e->plan || !(l = &e->plan->ret)->max)
		return leave(t, e, NULL);
	if (!l->fast || l->n_str || !l->gp)
		return 0;
	return leave(t, e, gp);
}

#endif
