/*
 * hooks.c - the hot path: __cyg_profile_func_enter/exit.
 *
 * Each hook reads the cycle counter, looks the function address up in a
 * 64-slot per-thread cache, and writes one prefix-varint event with a single
 * unaligned 8-byte store (see format.h): typically 2-3 bytes per event.  No
 * lock, no atomic, no syscall, no call through the PLT, nothing shared with
 * other threads.  Everything unusual (cache miss, first event of a thread,
 * full chunk, re-entry from a signal handler, call sites) leaves through one
 * predictable branch as a tail call to runtime.c, so the common path calls
 * nothing and spills no register.
 *
 * The `busy` guard: a signal handler that runs instrumented code while a hook
 * is between reading and advancing `pos` would overwrite half-written events
 * and desynchronise the address cache; its events are dropped and counted
 * instead.  The guard is taken before any state is read.
 */
#include <string.h>
#include "runtime/runtime.h"

__thread struct fnt_thread fnt_self FNT_HIDDEN __attribute__((tls_model("initial-exec")));

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

FNT_EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
	fnt_event((uintptr_t)fn, (uintptr_t)site, 0);
}

FNT_EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
	fnt_event((uintptr_t)fn, (uintptr_t)site, 1);
}

/* the same hooks under the public API's names (FNT_SCOPE) */
FNT_EXPORT void fnt__enter(void *fn, void *site) __attribute__((alias("__cyg_profile_func_enter")));
FNT_EXPORT void fnt__exit(void *fn, void *site) __attribute__((alias("__cyg_profile_func_exit")));
