/*
 * event-asm.h - the event encoding of runtime/event.h in assembly, for the
 * hot paths of hooks.S (the -finstrument-functions hooks) and fentry.S
 * (the trampolines): written once for both.
 */
#ifndef FNT_EVENT_ASM_H
#define FNT_EVENT_ASM_H

/* The value in %rdx as a prefix varint (fnt_varint_pack) at %r8, which
 * moves on past it.  Uses %rax and %rcx. */
.macro VARINT_PUT
	mov %rdx, %rax
	or $1, %rax
	bsr %rax, %rcx
	lea fnt_varint_len_table(%rip), %rax
	movzbl 1(%rax,%rcx), %ecx         /* its varint length */
	shl %cl, %rdx
	lea -1(%rcx), %eax
	bts %rax, %rdx                    /* fnt_varint_pack */
	mov %rdx, (%r8)
	add %rcx, %r8
.endm

/* A hit's head (d << 8 | slot << 2 | kind, under 2^21 since the pause d
 * is under FNT_GAP_TICKS = 2^13), or a NEW event's (d << 8 | other << 3 |
 * is_exit << 2 | FNT_K_NEW, as short), in %rdx as its 2- or 3-byte prefix
 * varint at %r8, which moves on past it.  Uses %rcx.  Without a branch: the
 * length follows the pause (3 bytes from 64 ticks on), which in a real
 * program changes from one call to the next, and a branch on it was
 * mispredicted often enough to cost 3-10 % of whole runs (mix, sqlite:
 * doc/perf-floor.md); the fastest-repetition figure of bench/floor, one
 * tiny function called at an even pace, did not move. */
.macro HIT_PUT
	lea 4(,%rdx,8), %rcx              /* fnt_varint_pack(v, 3) */
	cmp $0x4000, %rdx
	lea 2(,%rdx,4), %rdx              /* fnt_varint_pack(v, 2) */
	cmovae %rcx, %rdx
	mov %rdx, (%r8)
	lea 3(%r8), %r8
	sbb $0, %r8
.endm

/* A NEW event's address field (fnt_event_new): zigzag(\fn - prev_new) in
 * %rax, with the thread's state at %fs:(\tls); or a jump to \bail when the
 * reader would reject the address (0, not a user-space address, a
 * distance over FNT_VARINT_MAX).  Uses %rcx. */
.macro NEW_ZIGZAG fn, tls, bail
	test \fn, \fn
	jz \bail
	mov \fn, %rax
	shr $57, %rax
	jnz \bail                         /* not a user-space address */
	mov \fn, %rax
	sub %fs:T_PREV_NEW(\tls), %rax
	mov %rax, %rcx
	sar $63, %rcx
	add %rax, %rax
	xor %rcx, %rax                    /* zigzag(fn - prev_new) */
	mov %rax, %rcx
	shr $56, %rcx
	jnz \bail                         /* above FNT_VARINT_MAX */
.endm

/* The slot of the address cache that a NEW event fills (fnt_event_new):
 * of the set of \other (the other slot of the function's set, its home
 * slot ^ 1, a register or memory), the one filled the longer ago, by
 * cache_fifo's bit for the set, which is flipped.  The slot in %rcx, and
 * in \s64 payload bit 1: 1 when it is not the home slot.  \s32 and \s64
 * name one register; uses %rcx. */
.macro NEW_SLOT other, tls, s32, s64
	mov \other, %rcx
	shr $1, %ecx                      /* the set */
	mov %fs:T_FIFO(\tls), \s32
	btc %ecx, \s32
	mov \s32, %fs:T_FIFO(\tls)
	sbb \s32, \s32
	and $1, \s32                      /* its bit, before the flip */
	lea (\s64,%rcx,2), %rcx           /* set << 1 | bit */
	mov %rcx, \s64
	xor \other, \s64
	xor $1, \s64
.endm

/* fnt_depth_move (runtime/runtime.h): with an event's bytes written, the
 * thread's depth moved on by \step (1 or -1) in the store that marks the
 * move (busy = FNT_BUSY_MOVED, bit 31 of T_BUSY: one 8-byte store over
 * T_DEPTH and T_BUSY), before the caller moves T_POS past the event.
 * Leaves the new depth in \d32 (zero-extended in \d64) unless \tmp is
 * \d64. */
.macro DEPTH_MOVE tls, step, d32, d64, tmp
	mov %fs:T_DEPTH(\tls), \d32
	add $(\step), \d32
.ifnc \d64,\tmp
	mov \d64, \tmp
.endif
	bts $63, \tmp
	mov \tmp, %fs:T_DEPTH(\tls)
.endm

#endif
