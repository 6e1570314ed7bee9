/*
 * asm-offsets.h - where the fields that the trampolines' assembly fast
 * paths (arch/x86_64/fentry.S) read lie in struct fnt_thread and
 * struct fnt_shadow_entry.  asm-offsets.c checks every figure against the C
 * structs at build time, so a change to either struct that moves a field
 * stops the build here instead of breaking the trampoline.
 */
#ifndef FNT_ASM_OFFSETS_H
#define FNT_ASM_OFFSETS_H

/* struct fnt_thread */
#define T_POS       0x000
#define T_LIMIT     0x008
#define T_LAST      0x010
#define T_PREV_NEW  0x018
#define T_DEPTH     0x020
#define T_BUSY      0x024
#define T_STK_LO    0x028
#define T_STK_SPAN  0x030
#define T_CACHE     0x038
#define T_SS        0x4c8
#define T_SS_TOP    0x4d0
#define T_SS_CAP    0x4d4
#define T_FIFO      0x4e4

/* struct fnt_shadow_entry, 40 bytes */
#define E_RET       0
#define E_SLOT      8
#define E_FN        16
#define E_PLAN      24
#define E_WRITTEN   32
#define E_DEPTH     36
#define E_SIZE      40

/* struct fnt_argplan: its two lists, struct fnt_argplan_list */
#define P_ARGS      0
#define P_RET1      56            /* struct fnt_argplan_ret1 */
#define R1_KIND     0
#define R1_SRC      1
#define R1_SIZE     2
#define P_RET       64
#define L_N         0
#define L_LEN_LEN   3
#define L_PLAIN     5
#define L_MAX       6
#define L_SRC       8
#define L_SIZE      40
/* struct fnt_argspec_entry (fnt_argspec_table): 24 bytes */
#define S_ADDR      0
#define S_PLAN      8
#define A_SPEC_SHIFT 48           /* 64 - FNT_ARGSPEC_TABLE_BITS */
#define A_SPEC_MASK 0xffff        /* (1 << FNT_ARGSPEC_TABLE_BITS) - 1 */

#define A_GAP_TICKS 8192          /* FNT_GAP_TICKS */
#define A_CACHE_SHIFT 58          /* 64 - FNT_CACHE_BITS */
#define A_FAST_ARGS 16            /* FNT_FAST_ARGS, fnt_fast_off's bit for a spec */
#define A_CHUNK_SLACK 64          /* FNT_CHUNK_SLACK */
#define A_PLAN_STACK 0x80         /* FNT_PLAN_STACK */
#define A_ARGS_HEAD 0x3f          /* an ARGS record's head byte, a 1-byte varint */
#define A_RETVAL_HEAD 0x47        /* a RETVAL record's */
#define A_XSAVE_INUSE 1           /* FNT_XSAVE_INUSE (fnt_xsave_how) */
#define A_XSAVE_COMPACT 2         /* FNT_XSAVE_COMPACT */
#define A_XSAVE_UPPER 0x44        /* FNT_XSAVE_UPPER */
#define A_REGS_XSTATE 72          /* struct fnt_regs: xstate */

#endif
