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

#endif
