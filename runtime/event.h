/*
 * event.h - the one inline hot path that writes an entry or exit event,
 * shared by the -finstrument-functions hooks (hooks.c) and the -pg
 * -mfentry trampolines (fentry.c).  See hooks.c for how it works.
 */
#ifndef FNT_EVENT_H
#define FNT_EVENT_H

#include <string.h>
#include "runtime/runtime.h"

#define barrier() __asm__ volatile("" ::: "memory")

static inline __attribute__((always_inline)) void
fnt_event(uintptr_t fn, uintptr_t site, const int is_exit)
{
	struct fnt_thread *t = &fnt_self;
	uint8_t *p;
	uint64_t now, d, v, x;
	unsigned slot, len;

	/* Claim the guard before reading any state: a signal that lands before
	 * this runs its handler's events to completion on clean state; one that
	 * lands after finds the guard held and is dropped (and counted).
	 * Everything called below runs with the guard held and releases it. */
	if (unlikely(t->busy)) {
		fnt_reentered(t);
		return;
	}
	if (unlikely(fnt_paused))       /* fnt_disable(): nothing, not even the depth */
		return;
	t->busy = 1;
	barrier();
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
	d = now - t->last;
	slot = fnt_slot(fn);
	if (unlikely(t->cache[slot] != fn || d >= (1ull << 47) || (!is_exit && (fnt_flags & FNT_FLAG_CALLSITE)))) {
		fnt_rare_event(t, now, fn, site, is_exit);
		return;
	}
	t->last = now;
	v = d << 8 | (uint64_t)slot << 2 | (is_exit ? FNT_K_EXIT : FNT_K_ENTRY);
	len = fnt_varint_len_table[64 - __builtin_clzll(v | 1)];
	x = fnt_varint_pack(v, len);
	memcpy(p, &x, 8);
	t->pos = p + len;
	t->depth += is_exit ? -1 : 1;
	barrier();
	t->busy = 0;
}

#endif
