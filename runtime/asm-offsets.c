/*
 * asm-offsets.c - checks, at build time, every figure of asm-offsets.h
 * against the C structs, so that a change to a struct that moves a field
 * the trampolines' and hooks' assembly reads (arch/x86_64/fentry.S,
 * hooks.S) stops the build here instead of breaking the hot path.  It
 * holds no code.
 *
 * (This was runtime/fastpath.c, the C second tier of the return-address-
 * swap trampolines when some function has values to capture: an ordinary
 * call with the nine general registers pushed.  The assembly does that
 * common case itself now, ENTER_VALUES_ASM and EXIT_VALUES_ASM, and every
 * case it leaves went on to fail the C tier's checks too: doc/perf-floor.md,
 * "Values in the assembly".)
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
AT(fnt_argplan, args, P_ARGS);
AT(fnt_argplan, ret, P_RET);
AT(fnt_argplan, ret1, P_RET1);
AT(fnt_argplan_ret1, kind, R1_KIND);
AT(fnt_argplan_ret1, src, R1_SRC);
AT(fnt_argplan_ret1, size, R1_SIZE);
_Static_assert(FNT_RET1_NONE == 0 && FNT_RET1_ONE == 1, "fentry.S: EXIT_VALUES_ASM's ret1 kinds");
AT(fnt_argplan_list, n, L_N);
AT(fnt_argplan_list, len_len, L_LEN_LEN);
AT(fnt_argplan_list, plain, L_PLAIN);
AT(fnt_argplan_list, max, L_MAX);
AT(fnt_argplan_list, src, L_SRC);
AT(fnt_argplan_list, size, L_SIZE);
_Static_assert(sizeof(((struct fnt_argplan_list *)0)->max) == 2, "asm-offsets.h: max is 16-bit");
AT(fnt_argspec_entry, addr, S_ADDR);
AT(fnt_argspec_entry, plan, S_PLAN);
_Static_assert(sizeof(struct fnt_argspec_entry) == 24, "asm-offsets.h: spec table entry size");
_Static_assert(64 - FNT_ARGSPEC_TABLE_BITS == A_SPEC_SHIFT && (1u << FNT_ARGSPEC_TABLE_BITS) - 1 == A_SPEC_MASK,
	       "asm-offsets.h: spec table bits");
_Static_assert(FNT_CHUNK_SLACK == A_CHUNK_SLACK && FNT_PLAN_STACK == A_PLAN_STACK, "asm-offsets.h: slack, stack");
_Static_assert(A_ARGS_HEAD == (((FNT_EXT_ARGS << 2 | FNT_K_EXT) << 1) | 1) &&
	       A_RETVAL_HEAD == (((FNT_EXT_RETVAL << 2 | FNT_K_EXT) << 1) | 1), "asm-offsets.h: record heads");
_Static_assert(A_XSAVE_INUSE == FNT_XSAVE_INUSE && A_XSAVE_COMPACT == FNT_XSAVE_COMPACT &&
	       A_XSAVE_UPPER == FNT_XSAVE_UPPER, "asm-offsets.h: xsave bits");
