/*
 * event.h - the one inline hot path that writes an entry or exit event,
 * shared by the -finstrument-functions hooks (hooks.c) and the -pg
 * -mfentry trampolines (fentry.c), with fnt_disable()'s test and the
 * record-time filters' in-hook decisions (filter.c has the rules).  See hooks.c for how it works.
 */
#ifndef FNT_EVENT_H
#define FNT_EVENT_H

#include <string.h>
#include "runtime/runtime.h"

#define barrier() __asm__ volatile("" ::: "memory")

/* With t->busy held and fnt_filtering on: 1 when the record-time filters
 * leave this entry or exit out (or erase a short call's entry, -t).  The
 * calls left out most often are decided here: inside a hidden subtree
 * (-N), or returning outside any -F subtree; both only move the depth
 * (filter.c has the rules). */
static inline __attribute__((always_inline)) int
fnt_filter_skip(struct fnt_thread *t, uintptr_t fn, const int is_exit)
{
	/* an exit that is not the innermost open call's (with --module, the
	 * calls it leaves out are not noted: filter.c asks after them) */
	if (is_exit && (fnt_filtering & FNT_FILTER_DEPTH_ONLY) && fnt_exit_skipped(t, fn, 1))
		return 1;
	if (t->flt.n_root && (fnt_filtering & FNT_FILTER_DEPTH_ONLY)) {
		if (!is_exit)
			fnt_fn_note(t, ++t->flt.fdepth, fn);   /* (for a landing pad inside the subtree) */
		else if (t->flt.fdepth-- <= t->flt.n_root)
			t->flt.n_root = 0;
		return 1;
	}
	if (!t->flt.f_root && !t->flt.n_root) {
		/* outside any -F subtree: an exit, or an entry that matches nothing */
		if (is_exit && (fnt_filtering & FNT_FILTER_F_DEPTH_ONLY) == FNT_FILTER_F_DEPTH_ONLY) {
			/* (-C: a match out here leads only to calls not written) */
			if (t->flt.c_keep > 0 && t->flt.c_keep >= t->flt.fdepth)
				t->flt.c_keep = t->flt.fdepth - 1;
			if (t->flt.c_root >= t->flt.fdepth)
				t->flt.c_root = 0;   /* (a -C match outside the -F subtrees returns) */
			t->flt.fdepth--;
			return 1;
		}
		if (!is_exit && (fnt_filtering & FNT_FILTER_F_INLINE) == FNT_FILTER_F_INLINE &&
		    !fnt_fset_lookup(__atomic_load_n(&fnt_cur_set, __ATOMIC_ACQUIRE), fn)) {
			/* (noted too: an exception thrown in a -F subtree may
			 * land in a frame outside it) */
			fnt_fn_note(t, ++t->flt.fdepth, fn);
			return 1;
		}
	}
	return fnt_filter_event(t, fn, is_exit);
}

/* While recording is off (fnt_disable(), a trace_off trigger or signal):
 * 1 for the return of a call that was open when it went off, once the
 * calls entered since have returned, while written calls are open.  Its
 * entry was written, and its return is written too: a call that returns while recording is off
 * ends where it returned, and the calls its caller makes after recording
 * is on again do not nest inside it (the reader pairs an exit with the
 * innermost open call of its function, or calls it one entered while
 * recording was off).  Each switch off starts the count anew
 * (fnt_off_epoch); a finish trigger stops it for good. */
static inline __attribute__((always_inline)) int fnt_off_step(struct fnt_thread *t, const int is_exit)
{
	uint32_t e = __atomic_load_n(&fnt_off_epoch, __ATOMIC_RELAXED);
	if (t->off_epoch != e) {
		t->off_epoch = e;
		t->off_rel = 0;
	}
	if (!is_exit) {
		t->off_rel++;
		return 0;
	}
	if (t->off_rel > 0) {
		t->off_rel--;
		return 0;
	}
	/* (t->depth: the written calls open; none, when the ones open then
	 * were entered while recording was off before) */
	return t->depth > 0 && !__atomic_load_n(&fnt_trig_finished, __ATOMIC_RELAXED);
}

/* With t->busy held, when fnt_disable() is in force or filters are on: 1
 * when this entry or exit is not written.  While disabled nothing is
 * written but the returns of the calls open when it began (fnt_off_step);
 * the filters still follow the call depth (out of line), so that the
 * -F/-N subtrees they have open close when those calls return and
 * fnt_enable() finds them in step.  A trace_on trigger (-T FUNC@trace_on)
 * is looked for at each entry while disabled. */
static inline __attribute__((always_inline)) int
fnt_gate_skip(struct fnt_thread *t, uintptr_t fn, const int is_exit)
{
	if (unlikely(fnt_paused()) &&
	    (is_exit || !(fnt_trig_flags & FNT_TRIG_ON) || !fnt_trigger_paused(fn))) {
		if (!fnt_off_step(t, is_exit)) {
			if (fnt_filtering)
				fnt_filter_paused(t, fn, is_exit);
			return 1;
		}
		if (!fnt_filtering)
			return 0;
	}
	return fnt_filter_skip(t, fn, is_exit);
}

/* A function in neither slot of its set of the chunk's address cache
 * (`slot`: its home slot, fnt_slot), d (< 2^47) ticks after the previous
 * event: its NEW event written at p (at most 8 + 8 bytes; 3 + 8 from the
 * hooks, whose pauses are short: short_pause), into the set's older slot
 * (payload bit 1 when that is not the home slot), the cache, cache_fifo
 * and prev_new updated, and the length; or 0 when the reader would reject
 * the address.  One 8-byte store when the event fits in 8 bytes, as it mostly does; else
 * the address's varint follows the head's.  The hooks and the rare path
 * (write_rare) both write NEW events with it. */
static inline __attribute__((always_inline)) unsigned
fnt_event_new(struct fnt_thread *t, uint8_t *p, uintptr_t fn, unsigned slot, uint64_t d, const int is_exit,
	      const int short_pause)
{
	uint64_t zz = fnt_zigzag((int64_t)(fn - t->prev_new)), v, x;
	unsigned len, zlen, set = slot >> 1, other = ((t->cache_fifo >> set) ^ slot) & 1;

	if (!fn || fn >= (1ull << 57) || zz > FNT_VARINT_MAX)
		return 0;
	v = d << 8 | (uint64_t)(other << 1 | (is_exit ? 1u : 0u)) << 2 | FNT_K_NEW;
	/* a short pause (d < 2^13, the hooks'): the head is under 2^21, 2 or
	 * 3 bytes as a hit's (fnt_event_head) */
	len = short_pause ? 2 + (v >= (1u << 14)) : fnt_varint_len_table[64 - __builtin_clzll(v | 1)];
	zlen = fnt_varint_len_table[64 - __builtin_clzll(zz | 1)];
	x = fnt_varint_pack(v, len);
	if (len + zlen <= 8) {
		x |= fnt_varint_pack(zz, zlen) << (8 * len);
		memcpy(p, &x, 8);
	} else {
		memcpy(p, &x, 8);
		x = fnt_varint_pack(zz, zlen);
		memcpy(p + len, &x, 8);
	}
	__asm__ volatile("" ::: "memory");
	/* once the event is written (setjmp.c, guard_abandoned) */
	t->cache[slot ^ other] = fn;
	t->cache_fifo ^= 1u << set;
	t->prev_new = fn;
	return len + zlen;
}

_Static_assert((FNT_GAP_TICKS << 8) <= (1u << 21), "fnt_event_head: a hit's head fits 3 bytes");

/* With t->busy held, room at p and the cycle counter read: the event of
 * an entry or exit written at p (its NEW form when the function is not in
 * the chunk's cache), and its length; or nothing done (0) when it needs
 * the rare path: a long pause, a trigger (a function with one is tagged
 * in the cache, or not in it yet), an address the reader would reject.
 * Calls nothing. */
static inline __attribute__((always_inline)) unsigned
fnt_event_head(struct fnt_thread *t, uint8_t *p, uintptr_t fn, uint64_t now, const int is_exit)
{
	uint64_t d = now - t->last, v, x;
	unsigned slot = fnt_slot(fn), len;

	if (unlikely(d >= FNT_GAP_TICKS))
		return 0;
	if (unlikely(t->cache[slot] != fn)) {
		if (t->cache[slot ^ 1] == fn) {
			slot ^= 1;
		} else {
			if (fnt_trig_flags || !(len = fnt_event_new(t, p, fn, slot, d, is_exit, 1)))
				return 0;
			t->last = now;
			return len;
		}
	}
	/* d < 2^13, so v < 2^21: a varint of 2 or 3 bytes, chosen without a
	 * branch (the pause changes from call to call, and a branch on it is
	 * mispredicted) and without the general writer's bit count and table */
	v = d << 8 | (uint64_t)slot << 2 | (is_exit ? FNT_K_EXIT : FNT_K_ENTRY);
	len = 2 + (v >= (1u << 14));
	x = fnt_varint_pack(v, len);
	memcpy(p, &x, 8);
	barrier();
	t->last = now;          /* once the event is written (setjmp.c, guard_abandoned) */
	return len;
}

/* The whole common case of an event, written at p (0); or nothing done
 * (1): the rare path's, or a call site to add. */
static inline __attribute__((always_inline)) int
fnt_event_put(struct fnt_thread *t, uint8_t *p, uintptr_t fn, uint64_t now, const int is_exit)
{
	unsigned len;

	if (unlikely(!is_exit && (fnt_flags & FNT_FLAG_CALLSITE)) || !(len = fnt_event_head(t, p, fn, now, is_exit)))
		return 1;
	fnt_depth_move(t, is_exit ? -1 : 1);    /* (before the event counts: FNT_BUSY_MOVED) */
	t->pos = p + len;
	return 0;
}

/* With t->busy held (and the filters, if any, passed): write the event;
 * releases the guard. */
static inline __attribute__((always_inline)) void
fnt_event_write(struct fnt_thread *t, uintptr_t fn, uintptr_t site, const int is_exit)
{
	uint8_t *p;
	uint64_t now;

	p = t->pos;
	if (unlikely(p >= t->limit)) {
		fnt_slow_event(t, fn, site, is_exit);
		return;
	}
	if (unlikely(!fnt_use_tsc)) {
		fnt_mono_event(t, fn, site, is_exit);
		return;
	}
	now = __builtin_ia32_rdtsc();
	if (unlikely(fnt_event_put(t, p, fn, now, is_exit))) {
		fnt_rare_event(t, now, fn, site, is_exit);
		return;
	}
	barrier();
	t->busy = 0;
}

static inline __attribute__((always_inline)) void
fnt_event(uintptr_t fn, uintptr_t site, const int is_exit)
{
	struct fnt_thread *t = &fnt_self;
	uintptr_t sp;

	/* On the machine stack this thread was last seen on, in a process we
	 * know of?  If not (another stack: a coroutine, a signal stack; a
	 * context on this thread's TLS that is not this thread; a copy of the
	 * process made by a raw clone), the rare path sorts it out first
	 * (coro.c); it tells which events are not ours to write. */
	__asm__("mov %%rsp, %0" : "=r"(sp));
	if (fnt_stack_check(t, sp, 1))
		return;
	/* Claim the guard before reading any state: a signal that lands before
	 * this runs its handler's events to completion on clean state; one that
	 * lands after finds the guard held and is dropped (and counted).
	 * Everything called below runs with the guard held and releases it. */
	if (unlikely(t->busy)) {
		fnt_reentered(t);
		return;
	}
	t->busy = 1;
	barrier();
	/* fnt_disable() and the record-time filters: one predictable branch
	 * when recording is on and there are no filters */
	if (unlikely(fnt_filtering | fnt_paused()) && fnt_gate_skip(t, fn, is_exit)) {
		barrier();
		t->busy = 0;
		return;
	}
	fnt_event_write(t, fn, site, is_exit);
}

#endif
