/*
 * hooks.c - the hot path: __cyg_profile_func_enter/exit.
 *
 * Each hook reads the cycle counter, looks the function address up in a
 * 64-slot per-thread cache, and writes one prefix-varint event with a single
 * unaligned 8-byte store (see format.h): typically 2-3 bytes per event.  No
 * lock, no atomic, no syscall, no call through the PLT, nothing shared with
 * other threads.  Everything unusual (cache miss, first event of a thread,
 * full chunk, re-entry from a signal handler) leaves through one predictable
 * branch to runtime.c.
 */
#include <string.h>
#include "runtime/runtime.h"

__thread struct fnt_thread fnt_self FNT_HIDDEN __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) void
fnt_event(uintptr_t fn, uintptr_t site, const int is_exit)
{
	struct fnt_thread *t = &fnt_self;
	uint8_t *p = t->pos;
	uint64_t now, d, v, x;
	unsigned slot, len;

	if (unlikely(p >= t->limit || t->busy)) {
		fnt_slow_event(t, fn, site, is_exit);
		return;
	}
	t->busy = 1;
	now = fnt_now();
	d = now - t->last;
	slot = fnt_slot(fn);
	if (likely(t->cache[slot] == fn && d < (1ull << 47))) {
		t->last = now;
		v = d << 8 | (uint64_t)slot << 2 | (is_exit ? FNT_K_EXIT : FNT_K_ENTRY);
		len = fnt_varint_len(v);
		x = fnt_varint_pack(v, len);
		memcpy(p, &x, 8);
		t->pos = p + len;
	} else {
		fnt_write_rare(t, now, d, fn, is_exit);
	}
	if (is_exit) {
		t->depth--;
	} else {
		t->depth++;
		if (unlikely(fnt_flags & FNT_FLAG_CALLSITE))
			fnt_write_callsite(t, fn, site);
	}
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
