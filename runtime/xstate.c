/*
 * xstate.c - the parts of the vector registers that the trampolines'
 * general path keeps beyond xmm0-15 (arch/x86_64/fentry.S, SAVE_ALL and
 * RESTORE_ALL).
 *
 * The trampolines run before a function's prologue and after its return,
 * where its arguments and its return value are still in registers, and
 * with gcc -fipa-ra a caller may keep its own values in any call-clobbered
 * register.  The general path calls C, and the C calls glibc's string
 * functions (getenv, memcpy, strnlen: a thread's first call, a string
 * value), whose AVX2 versions end in vzeroupper, which clears the upper
 * halves of ymm0-15 and zmm0-15, and whose EVEX versions use ymm16-31 and
 * the mask registers.  A function that takes or returns __m256 or __m512
 * values then computed with zeroed lanes (tests/cases/vector-regs).
 *
 * So the general path saves, with XSAVEC (XSAVE where there is none), the
 * state components 2 (AVX: ymm0-15's upper halves), 5 (the opmask
 * registers), 6 (zmm0-15's upper halves) and 7 (zmm16-31) that XCR0
 * enables, and restores them after the C call; only when XGETBV 1 says the
 * upper halves (2 or 6) are in use (not in their initial state), which
 * most of the time, after a vzeroupper, they are not.  (Components 5 and
 * 7 alone do not count: glibc's EVEX functions leave them in use nearly
 * always, and saving them cost 76 ns a call: doc/safety.md, "Vector
 * registers".)  The fast paths in assembly touch no vector register.
 */
#include <cpuid.h>
#include <stdint.h>
#include "runtime/runtime.h"

/* (read by fentry.S; written once, the mask last) */
uint32_t fnt_xsave_mask FNT_HIDDEN;   /* the components to keep, 0: none (no AVX, or not known yet) */
uint32_t fnt_xsave_size FNT_HIDDEN;   /* bytes of the save area, a multiple of 64 */
uint32_t fnt_xsave_how FNT_HIDDEN;    /* FNT_XSAVE_INUSE: XGETBV 1; FNT_XSAVE_COMPACT: XSAVEC */

#define XSTATE_KEPT ((1u << 2) | (1u << 5) | (1u << 6) | (1u << 7))

static uint64_t xgetbv(uint32_t which)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(which));
	return (uint64_t)hi << 32 | lo;
}

/* Once, from runtime_init and from the library's constructor, whichever
 * comes first; a trampoline's general path before either keeps xmm0-15
 * only, as before.  No libc call: the CPUID leaves alone. */
void fnt_xstate_init(void)
{
	unsigned a, b, c, d, how = 0, size = 0;

	if (__atomic_load_n(&fnt_xsave_mask, __ATOMIC_RELAXED))
		return;
	if (__get_cpuid_max(0, NULL) < 0xd || !__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return;
	uint32_t mask = (uint32_t)xgetbv(0) & XSTATE_KEPT;
	if (!(mask & (1u << 2)))
		return;                   /* no AVX: xmm0-15 are the whole of it */
	__cpuid_count(0xd, 1, a, b, c, d);
	if (a & (1u << 2))
		how |= FNT_XSAVE_INUSE;
	if (a & (1u << 1))
		how |= FNT_XSAVE_COMPACT;
	if (how & FNT_XSAVE_COMPACT) {
		/* the compacted form: the legacy area and the header (576
		 * bytes), then each component of the mask in order, some
		 * aligned to 64 */
		size = 576;
		for (unsigned i = 2; i < 32; i++)
			if (mask & (1u << i)) {
				__cpuid_count(0xd, i, a, b, c, d);
				if (c & 2)
					size = (size + 63) & ~63u;
				size += a;
			}
	} else {
		/* the standard form: each component at its fixed offset */
		for (unsigned i = 2; i < 32; i++)
			if (mask & (1u << i)) {
				__cpuid_count(0xd, i, a, b, c, d);
				if (b + a > size)
					size = b + a;
			}
	}
	if (size < 576 || size > 64 * 1024)
		return;                   /* (not a figure a processor gives) */
	fnt_xsave_size = (size + 63) & ~63u;
	fnt_xsave_how = how;
	__atomic_store_n(&fnt_xsave_mask, mask, __ATOMIC_RELEASE);
}

__attribute__((constructor(101))) static void xstate_early(void)
{
	fnt_xstate_init();
}
