/*
 * fentry.h - the -pg -mfentry trampolines' C side (fentry.c: arguments,
 * filters, exceptions, everything the assembly of arch/x86_64/fentry.S
 * leaves), and what the library-call and -P trampolines share with it.
 */
#ifndef FNT_FENTRY_H
#define FNT_FENTRY_H

#include <stdint.h>
#include "runtime/runtime.h"

void fnt_return_trampoline(void) FNT_HIDDEN;
/* copy a C string from the program, never faulting (fentry.c) */
uint8_t *fnt_put_string(uint8_t *p, uintptr_t ptr) FNT_HIDDEN;

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

/* struct fnt_shadow_entry's `written`: its entry was written (else the
 * record-time filters left it out); and KEPT, the frame of a library call
 * that does not return (exit, longjmp...: runtime/libcall.c), whose return
 * address was left as it was.  A kept frame only ever leaves the shadow
 * stack as unwound (a longjmp, an exception, pthread_exit), never through
 * the return trampoline, and the stack walks leave its slot alone. */
#define FNT_SS_WRITTEN 1u
#define FNT_SS_KEPT 2u
/* ...and CLOSED, a frame of a machine stack that a jump left for good
 * (runtime/setjmp.c), whose call the trace closed there (UNWIND) and the
 * filters no longer count: kept with its real return address, not
 * written, because a coroutine resumed later by another jump returns
 * through it (fnt_shadow_close) */
#define FNT_SS_CLOSED 4u

/* How a call is entered (fnt_shadow_enter_how, for runtime/libcall.c):
 * its return address swapped, as every traced call; kept (a call that does
 * not return); or its entry and its exit at once, nothing left on the
 * shadow stack (a call that returns twice, setjmp, vfork: its return
 * address must stay as it is, and its frame cannot be followed). */
#define FNT_ENTER_SWAP 0
#define FNT_ENTER_KEPT 1
#define FNT_ENTER_ZERO 2

/* Put fn's frame, whose return address is at *slot, on the shadow stack;
 * with the guard held. */
static inline __attribute__((always_inline)) void
fnt_shadow_put(struct fnt_thread *t, uintptr_t fn, uintptr_t *slot, const struct fnt_argplan *plan, uint32_t written)
{
	struct fnt_shadow_entry *e = &t->ss[t->ss_top];
	e->ret = *slot;
	e->slot = (uintptr_t)slot;
	e->fn = fn;
	e->plan = plan;
	e->written = written;
	e->depth = t->depth;
	t->ss_top++;
}

/* ...and swap that return address for the return trampoline */
static inline __attribute__((always_inline)) void
fnt_shadow_push(struct fnt_thread *t, uintptr_t fn, uintptr_t *slot, const struct fnt_argplan *plan, uint32_t written)
{
	fnt_shadow_put(t, fn, slot, plan, written);
	*slot = (uintptr_t)fnt_return_trampoline;
}

/* ---- the fast path of captured values ----
 * With the guard held, the common case of an entry with its ARGS record or
 * an exit with its RETVAL record: the clock read, the function in the
 * address cache, room in the chunk for the worst case of both (one bounds
 * check), no call site to add.  The event head goes first (its 8-byte
 * store zeroes what follows), then the record's length and body, then the
 * record's one-byte head, so that a reader never sees a head without its
 * body.  Values go straight from the register frame into the chunk; a
 * string is copied into it, bounded by FNT_ARG_STR_MAX.  Returns 0 when it
 * wrote nothing: the caller takes the general path (fnt_event_ext).  w:
 * the register frame's words (struct fnt_regs).  Its fixed-size case has
 * an assembly twin, VALUES_PUT (arch/x86_64/fentry.S), which must write
 * the same bytes (tests/cases/args-asm-parity). */
static inline __attribute__((always_inline)) int
values_fast(struct fnt_thread *t, const struct fnt_argplan_list *l, uintptr_t fn, const uint64_t *w,
	    const uintptr_t *slot, const int is_exit)
{
	uint8_t *p = t->pos, *q, *body;
	uint64_t v, x;
	unsigned len;

	if (unlikely(!l->fast || p >= t->limit || !fnt_use_tsc ||
		     p + 11 + 1 + l->len_len + l->max + 8 > t->limit + FNT_CHUNK_SLACK ||   /* (a NEW event: 11) */
		     (!is_exit && (fnt_flags & FNT_FLAG_CALLSITE))))
		return 0;
	if (!(len = fnt_event_head(t, p, fn, __builtin_ia32_rdtsc(), is_exit)))
		return 0;
	p += len;
	body = q = p + 1 + l->len_len;
	if (!l->n_str) {
		/* fixed size: the length is known (each item's size), and
		 * stored before the body */
		x = fnt_varint_pack(l->max, l->len_len);
		memcpy(p + 1, &x, 8);
		for (unsigned i = 0; i < l->n; i++) {
			uint8_t s = l->src[i];
			v = s & FNT_PLAN_STACK ? slot[s & 0x7f] : w[s];
			memcpy(q, &v, 8);       /* the bytes past its size: the next item's, or zeroed below */
			q += l->size[i];
		}
		memset(q, 0, 8);                /* past the body: zeros, as past every event */
	} else {
		for (unsigned i = 0; i < l->n; i++) {
			uint8_t s = l->src[i];
			v = s & FNT_PLAN_STACK ? slot[s & 0x7f] : w[s];
			if (l->kind[i] == FNT_PLAN_STR) {
				q = fnt_put_string(q, (uintptr_t)v);
			} else {
				memcpy(q, &v, 8);
				q += l->size[i];
			}
		}
		memset(q, 0, 8);
		/* the length, as short as it can be: the body moves up when
		 * the worst case needed a longer one */
		size_t n = (size_t)(q - body);
		unsigned ll = fnt_varint_len(n);
		if (ll < l->len_len) {
			memmove(p + 1 + ll, body, n);
			q -= l->len_len - ll;
		}
		x = fnt_varint_pack(n, ll);
		memcpy(p + 1, &x, ll);
		memset(q, 0, l->len_len - ll);  /* what the body left behind: nothing past the record but zeros */
	}
	x = fnt_varint_pack((uint64_t)(is_exit ? FNT_EXT_RETVAL : FNT_EXT_ARGS) << 2 | FNT_K_EXT, 1);
	*(volatile uint8_t *)p = (uint8_t)x;
	fnt_depth_move(t, is_exit ? -1 : 1);    /* (before the event counts: FNT_BUSY_MOVED) */
	t->pos = q;
	return 1;
}

#endif
