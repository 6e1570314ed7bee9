/*
 * hooks.c - the hot path: __cyg_profile_func_enter/exit.  In the shared
 * library their common case is assembly (arch/x86_64/hooks.S, the same
 * steps with no register to save), which jumps to the C below for the
 * rest; the archive, which has no assembly, uses the C alone.
 *
 * Each hook reads the cycle counter, looks the function address up in a
 * 64-slot per-thread cache (32 sets of two, format.h), and writes one prefix-varint event with a single
 * unaligned 8-byte store (see format.h): typically 2-3 bytes per event.  No
 * lock, no atomic, no syscall, no call through the PLT, nothing shared with
 * other threads.  Everything unusual (cache miss, first event of a thread,
 * full chunk, re-entry from a signal handler, call sites) leaves through one
 * predictable branch as a tail call to slowpath.c, so the common path calls
 * nothing and spills no register.  Record-time filters (filter.c) are one
 * more predictable branch when off; when on, the calls they leave out most
 * often are decided here from per-thread depth counters (event.h).
 *
 * The `busy` guard: a signal handler that runs instrumented code while a hook
 * is between reading and advancing `pos` would overwrite half-written events
 * and desynchronise the address cache; its events are dropped and counted
 * instead.  The guard is taken before any state is read.
 */
#include "runtime/event.h"

__thread struct fnt_thread fnt_self FNT_HIDDEN __attribute__((tls_model("initial-exec")));

#ifdef FNT_STATIC_ARCHIVE
/* the archive has no assembly: these are the hooks themselves */
#define CYG_ENTER __cyg_profile_func_enter
#define CYG_EXIT __cyg_profile_func_exit
#define CYG_API FNT_EXPORT
#else
/* arch/x86_64/hooks.S does the common case and jumps here for the rest */
#define CYG_ENTER fnt_cyg_enter_c
#define CYG_EXIT fnt_cyg_exit_c
#define CYG_API FNT_HIDDEN
#endif

CYG_API void CYG_ENTER(void *fn, void *site)
{
	fnt_event((uintptr_t)fn, (uintptr_t)site, 0);
}

CYG_API void CYG_EXIT(void *fn, void *site)
{
	fnt_event((uintptr_t)fn, (uintptr_t)site, 1);
}

#ifdef FNT_STATIC_ARCHIVE
/* the same hooks under the public API's names (FNT_SCOPE); hooks.S has
 * them in the shared library */
FNT_EXPORT void fnt__enter(void *fn, void *site) __attribute__((alias("__cyg_profile_func_enter")));
FNT_EXPORT void fnt__exit(void *fn, void *site) __attribute__((alias("__cyg_profile_func_exit")));
#endif
