/*
 * fentry.h - what the -pg -mfentry trampolines' two C sides share: the
 * slow one (fentry.c: arguments, filters, exceptions, everything) and the
 * fast one (fastpath.c: an entry or exit with nothing special about it,
 * built without vector registers so that the trampolines need not save
 * them).
 */
#ifndef FNT_FENTRY_H
#define FNT_FENTRY_H

#include <stdint.h>
#include "runtime/runtime.h"

void fnt_return_trampoline(void) FNT_HIDDEN;

/* gcc's nested functions save their static chain around the __fentry__
 * call: `push %r10; [endbr64;] call __fentry__; pop %r10`.  Then the
 * function's return address lies one slot further up than usual, and the
 * slot next to the call's own return address is the saved chain, which
 * the trampoline must leave alone.  The pop right after the call is what
 * tells it apart from whatever precedes an ordinary function. */
static inline int fentry_saves_chain(uintptr_t ret)
{
	const uint8_t *p = (const uint8_t *)ret;
	if (p[0] != 0x41 || p[1] != 0x5a)
		return 0;
	const uint8_t *c = p - ((p[-6] == 0xff && p[-5] == 0x15) ? 6 : 5);
	if (c[-4] == 0xf3 && c[-3] == 0x0f && c[-2] == 0x1e && c[-1] == 0xfa)
		c -= 4;
	return c[-2] == 0x41 && c[-1] == 0x52;
}

/* The function's first byte, from the address just past its __fentry__
 * call: a 5-byte direct call (clang, gcc -fno-plt off) or a 6-byte call
 * through the GOT (gcc's default), after an endbr64 if there is one. */
static inline uintptr_t fentry_fn(uintptr_t ret)
{
	const uint8_t *p = (const uint8_t *)ret;
	uintptr_t fn = (p[-6] == 0xff && p[-5] == 0x15) ? ret - 6 : ret - 5;
	const uint8_t *e = (const uint8_t *)fn - 4;
	if (e[0] == 0xf3 && e[1] == 0x0f && e[2] == 0x1e && e[3] == 0xfa)
		fn -= 4;
	if (fentry_saves_chain(ret))
		fn -= 2;
	return fn;
}

/* Push fn's frame, whose return address is at *slot, and swap that
 * address for the return trampoline; with the guard held. */
static inline __attribute__((always_inline)) void
fnt_shadow_push(struct fnt_thread *t, uintptr_t fn, uintptr_t *slot, const struct fnt_argplan *plan, uintptr_t written)
{
	struct fnt_shadow_entry *e = &t->ss[t->ss_top];
	e->ret = *slot;
	e->slot = (uintptr_t)slot;
	e->fn = fn;
	e->plan = plan;
	e->written = written;
	e->depth = t->depth;
	t->ss_top++;
	*slot = (uintptr_t)fnt_return_trampoline;
}

#endif
