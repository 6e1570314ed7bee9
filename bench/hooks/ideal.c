/*
 * ideal.c - the recording floor: each hook reads the cycle counter and stores
 * 16 bytes (time with the entry/exit bit, function address) into a per-thread
 * ring buffer in initial-exec TLS that wraps around.  Nothing is ever written
 * out, nothing shared between threads.  A real recorder must at least do this.
 */
#include <stdint.h>
#include <stdlib.h>

#define NOI __attribute__((no_instrument_function, visibility("default")))
#ifndef RING
/* events per thread: 1 MiB (bench/run.py also builds 1u << 20, 16 MiB,
 * the size of record's ring) */
#define RING (1u << 16)
#endif

struct ev {
	uint64_t tsc_kind;
	uint64_t fn;
};

static __thread struct ev *ring __attribute__((tls_model("initial-exec")));
static __thread uint32_t pos __attribute__((tls_model("initial-exec")));

__attribute__((no_instrument_function, noinline, cold)) static struct ev *ring_init(void)
{
	ring = calloc(RING, sizeof *ring);
	if (!ring)
		abort();
	return ring;
}

__attribute__((no_instrument_function, always_inline)) static inline void put(void *fn, uint64_t kind)
{
	struct ev *r = ring;
	uint32_t p = pos;

	if (__builtin_expect(!r, 0))
		r = ring_init();
	r[p].tsc_kind = __builtin_ia32_rdtsc() << 1 | kind;
	r[p].fn = (uintptr_t)fn;
	pos = (p + 1) & (RING - 1);
}

NOI void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	put(fn, 0);
}

NOI void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	put(fn, 1);
}
