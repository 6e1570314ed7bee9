/*
 * fentry.S - the -pg -mfentry entry trampoline, the return trampoline, and
 * the stubs that keep C++ exceptions working through swapped return
 * addresses.
 *
 * __fentry__ runs before the prologue of every function built with
 * -pg -mfentry (and from the patched NOP pads of -fpatchable-function-entry).
 * gcc -O2 -fipa-ra lets a caller keep values in call-clobbered registers
 * across a call to a function it knows, unaware of the __fentry__ call
 * inside it: so both trampolines save EVERY call-clobbered register (rax,
 * rcx, rdx, rsi, rdi, r8-r11, xmm0-xmm15, and the upper parts of the ymm
 * and zmm registers, the opmasks and zmm16-31 when one is in use: XSTATE_SAVE)
 * around the C code, whatever it does, and the stack is realigned for it.
 *
 * Each first tries the common case, in assembly.  When no function has
 * values to capture, that is ENTER_ASM and EXIT_ASM below, which save the
 * six registers they use; when some function has, ENTER_VALUES_ASM and
 * EXIT_VALUES_ASM, which push the nine general registers and read the
 * values from there and from the stack.  Either does the whole entry or
 * exit or changes nothing; then the general path below runs, with the full
 * save.  (The values' common case was C once, runtime/fastpath.c, an
 * ordinary call between the two: doc/perf-floor.md, "Values in the
 * assembly".)
 *
 * Frame (struct fnt_regs in runtime/fentry.c), from the aligned %rsp:
 *   0 rdi, 8 rsi, 16 rdx, 24 rcx, 32 r8, 40 r9, 48 rax, 56 r10, 64 r11,
 *   72 the XSAVE area above it or 0, 80 + 16*i xmm_i (i = 0..15): 336 bytes.
 */
#include "runtime/asm-offsets.h"
#include "arch/x86_64/event-asm.h"

	.text

/* the six registers the assembly fast paths use */
.macro SCRATCH_PUSH
	push %rax
	.cfi_adjust_cfa_offset 8
	push %rdx
	.cfi_adjust_cfa_offset 8
	push %rcx
	.cfi_adjust_cfa_offset 8
	push %rsi
	.cfi_adjust_cfa_offset 8
	push %rdi
	.cfi_adjust_cfa_offset 8
	push %r8
	.cfi_adjust_cfa_offset 8
.endm

.macro SCRATCH_POP
	pop %r8
	.cfi_adjust_cfa_offset -8
	pop %rdi
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	pop %rcx
	.cfi_adjust_cfa_offset -8
	pop %rdx
	.cfi_adjust_cfa_offset -8
	pop %rax
	.cfi_adjust_cfa_offset -8
.endm

/* What both assembly fast paths check first, before the thread's state,
 * once their caller has found fnt_fast_off 0 (nothing process-wide asks
 * for C: no --callsite, filter, spec or fnt_disable(), the cycle counter
 * in use): the stack pointer \sp(%rsp) lies in the thread's window
 * (fnt_stack_check, the fork mask included) and its guard is free; then
 * the guard is taken, so that what follows is read after any signal
 * handler's events.  Leaves the thread's TLS offset in %rsi; otherwise
 * jumps to \bail with nothing changed.  Uses %rax and %rdx. */
.macro FAST_CLAIM sp, bail
	mov fnt_self@gottpoff(%rip), %rsi
	lea \sp(%rsp), %rax
	sub %fs:T_STK_LO(%rsi), %rax
	mov %fs:T_STK_SPAN(%rsi), %rdx
	and fnt_fork_page(%rip), %rdx
	cmp %rdx, %rax
	ja \bail
	cmpl $0, %fs:T_BUSY(%rsi)
	jne \bail
	movl $1, %fs:T_BUSY(%rsi)
.endm

/* With the guard held, the thread's state at %fs:(%rsi) and its write
 * position in %r8: the event of kind \kind (FNT_K_ENTRY or FNT_K_EXIT) of
 * the function in register \fn, as fnt_event_head (runtime/event.h)
 * encodes it, written and %r8 moved past it (the caller moves the depth
 * on, DEPTH_MOVE, and then stores %r8 in T_POS); or, when it needs the
 * rare path (a long pause, a trigger, an address the reader would
 * reject), nothing written and a jump to \bail.  A function not in the
 * chunk's cache goes to .L\id\()_new, EVENT_NEW_ASM's part, which the
 * caller places after its return (so that the common case runs straight
 * through, with no taken jump past it) and which comes back here.  Uses
 * %rax, %rcx and %rdx. */
.macro EVENT_ASM kind, fn, bail, id
	rdtsc
	shl $32, %rdx
	or %rax, %rdx                     /* now */
	mov %rdx, %rax
	sub %fs:T_LAST(%rsi), %rdx        /* the pause */
	cmp $A_GAP_TICKS, %rdx
	jae \bail
	movabs $0x9E3779B97F4A7C15, %rcx
	imul \fn, %rcx
	shr $A_CACHE_SHIFT, %rcx          /* the cache slot (fnt_slot) */
	cmp %fs:T_CACHE(%rsi,%rcx,8), \fn
	jne .L\id\()_new                 /* (the other slot of its set first) */
.L\id\()_hit:
	shl $8, %rdx
	lea \kind(%rdx,%rcx,4), %rdx      /* d << 8 | slot << 2 | kind */
	HIT_PUT
	mov %rax, %fs:T_LAST(%rsi)        /* once the event is written (setjmp.c) */
.L\id\()_back:
.endm

/* EVENT_ASM's cold part, for a function not in its home slot (%rcx) of
 * the chunk's address cache: a hit in the other slot of its set, back
 * into EVENT_ASM; or its NEW event (fnt_event_new) into the set's older
 * slot, with the cache, cache_fifo and prev_new updated, and back; or
 * \bail (a trigger, an address the reader would reject).  Uses 24 bytes
 * of stack below %rsp. */
.macro EVENT_NEW_ASM kind, fn, bail, id
.L\id\()_new:
	xor $1, %ecx                      /* the other slot of the set */
	cmp %fs:T_CACHE(%rsi,%rcx,8), \fn
	je .L\id\()_hit
	cmpl $0, fnt_trig_flags(%rip)
	jne \bail                        /* (a function with a trigger is tagged in the cache) */
	push %rcx                         /* the other slot */
	.cfi_adjust_cfa_offset 8
	push %rax                         /* now */
	.cfi_adjust_cfa_offset 8
	NEW_ZIGZAG \fn, %rsi, .L\id\()_reject
	push %rax
	.cfi_adjust_cfa_offset 8
	NEW_SLOT 16(%rsp), %rsi, %eax, %rax
	mov %rcx, 16(%rsp)
	shl $8, %rdx
	lea (2 + 4 * \kind)(%rdx,%rax,8), %rdx   /* d << 8 | other << 3 | is_exit << 2 | FNT_K_NEW */
	HIT_PUT                           /* under 2^21 as a hit's */
	pop %rdx                          /* the address's varint after the head */
	.cfi_adjust_cfa_offset -8
	VARINT_PUT
	pop %rax
	.cfi_adjust_cfa_offset -8
	mov %rax, %fs:T_LAST(%rsi)
	pop %rcx
	.cfi_adjust_cfa_offset -8
	mov \fn, %fs:T_CACHE(%rsi,%rcx,8)
	mov \fn, %fs:T_PREV_NEW(%rsi)
	jmp .L\id\()_back
.L\id\()_reject:
	.cfi_adjust_cfa_offset 16
	pop %rax
	.cfi_adjust_cfa_offset -8
	pop %rcx
	.cfi_adjust_cfa_offset -8
	jmp \bail
.endm

/* The return trampoline's way back to the real return address, which it
 * has put in the slot at 0(%rsp): a jump, not a `ret`.  The traced
 * function's own `ret` came here against the prediction of the processor's
 * return stack, which it popped; another `ret` would pop one more entry
 * than was pushed and leave every later return of the outer frames
 * predicted against the wrong entry.  The slot lies within the 128 bytes
 * below %rsp that the kernel leaves alone when it delivers a signal, and
 * `lea` leaves the flags as they are. */
.macro RETURN_JMP
	lea 8(%rsp), %rsp
	.cfi_adjust_cfa_offset -8
	jmp *-8(%rsp)
.endm

/* What both return paths check once they hold the guard: the top frame of
 * the shadow stack (into %rdi) is this return's, its slot at \slot(%rsp),
 * and was written; room in the chunk (its write position into %r8).
 * Otherwise a jump to \bail.  Uses %rax and %rcx. */
.macro EXIT_FRAME slot, bail
	mov %fs:T_SS_TOP(%rsi), %ecx
	sub $1, %ecx
	jb \bail                            /* an empty shadow stack */
	lea (%rcx,%rcx,4), %rdi
	shl $3, %rdi
	add %fs:T_SS(%rsi), %rdi          /* the top frame */
	lea \slot(%rsp), %rax
	cmp %rax, E_SLOT(%rdi)
	jne \bail                           /* frames to drop first, or another stack's */
	testb $1, E_WRITTEN(%rdi)               /* FNT_SS_WRITTEN */
	je \bail
	mov %fs:T_POS(%rsi), %r8
	cmp %fs:T_LIMIT(%rsi), %r8
	jae \bail
.endm

/* The end of an exit whose event is written up to %r8: the depth, then
 * the position moved on, the pop, the guard released. */
.macro EXIT_DONE
	DEPTH_MOVE %rsi, -1, %eax, %rax, %rax  /* before the event counts */
	mov %r8, %fs:T_POS(%rsi)
	subl $1, %fs:T_SS_TOP(%rsi)
	movl $0, %fs:T_BUSY(%rsi)
.endm

/* The return trampoline's plain case, whole, in assembly: the frame at the
 * top of the shadow stack is this return's (its slot just above %rsp), was
 * written, has no value to capture; recording is on with no filter; the
 * thread is on its own stack, its guard free, room in its chunk, the cycle
 * counter in use; the function is in the chunk's address cache and the
 * pause since the thread's last event is short.  Then: the exit event
 * (fnt_event_head's encoding, runtime/event.h), the pop, and the real
 * return.  Otherwise nothing is changed and it goes on at \slow, with the
 * stack as it found it.  The same steps as the general path's
 * (fnt_fentry_exit, runtime/fentry.c); the guard is taken before
 * any of the thread's state is read, so that a signal handler's events
 * land either wholly before it or are turned away.  The six registers
 * it uses are saved, none else touched.  Fields by runtime/asm-offsets.h,
 * which asm-offsets.c checks against the structs. */
.macro EXIT_ASM slow
	SCRATCH_PUSH
	/* 48(%rsp): the slot for the real return address, the caller's %rsp at 56(%rsp) */
	FAST_CLAIM 56, .Lex_unclaimed
	EXIT_FRAME 48, .Lex_bail
	/* (no value to capture: with no spec anywhere, no frame has a plan) */
	/* the real return address into its slot now, which the general path
	 * overwrites if it is taken: the frame is then needed no more, and
	 * its register holds the function */
	mov E_RET(%rdi), %rax
	mov %rax, 48(%rsp)
	mov E_FN(%rdi), %rdi
	EVENT_ASM 1, %rdi, .Lex_bail, ex      /* FNT_K_EXIT */
	EXIT_DONE
	SCRATCH_POP
	RETURN_JMP
	.cfi_adjust_cfa_offset 56
	EVENT_NEW_ASM 1, %rdi, .Lex_bail, ex
.Lex_bail:
	movl $0, %fs:T_BUSY(%rsi)
.Lex_unclaimed:
	SCRATCH_POP
	jmp \slow
.endm

/* The end of an entry whose event is written up to %r8, with the guard
 * held and the function in %rdi: the depth, then the position moved on,
 * the shadow push with the plan \plan (a register, or $0 for none) and the
 * swap of the return address at \slot(%rsp) for the return trampoline,
 * the guard released.  ENTER_ASM stores its $0 too: a frame it pushes
 * after a spec appeared (a dlopen on another thread between its test of
 * fnt_fast_off and its guard) may reuse a slot that a signal handler's
 * call with a plan left, and its exit then reads the plan. */
.macro ENTER_DONE slot, plan
	DEPTH_MOVE %rsi, 1, %edx, %rdx, %rax   /* before the event counts */
	mov %r8, %fs:T_POS(%rsi)
	mov %fs:T_SS_TOP(%rsi), %ecx      /* the shadow push (fnt_shadow_push) */
	lea (%rcx,%rcx,4), %r8
	shl $3, %r8
	add %fs:T_SS(%rsi), %r8           /* its frame */
	mov \slot(%rsp), %rax
	mov %rax, E_RET(%r8)
	lea \slot(%rsp), %rax
	mov %rax, E_SLOT(%r8)
	mov %rdi, E_FN(%r8)
	movq \plan, E_PLAN(%r8)
	shl $32, %rdx
	or $1, %rdx
	mov %rdx, E_WRITTEN(%r8)          /* written 1 and the depth, one store (E_DEPTH follows) */
	add $1, %ecx
	mov %ecx, %fs:T_SS_TOP(%rsi)
	lea fnt_return_trampoline(%rip), %rax
	mov %rax, \slot(%rsp)
	movl $0, %fs:T_BUSY(%rsi)
.endm

/* What both entry paths check first: the guard claimed (FAST_CLAIM, or
 * \slow with nothing changed), room on the shadow stack and in the chunk
 * (its write position into %r8), else \bail with the guard held. */
.macro ENTER_READY slot, slow, bail
	FAST_CLAIM \slot, \slow
	mov %fs:T_SS_TOP(%rsi), %ecx
	cmp %fs:T_SS_CAP(%rsi), %ecx
	je \bail                            /* full, or no shadow stack yet (its capacity is then 0) */
	mov %fs:T_POS(%rsi), %r8
	cmp %fs:T_LIMIT(%rsi), %r8
	jae \bail
.endm

/* The entry trampolines' plain case, whole, in assembly (the entry twin
 * of EXIT_ASM, with the same steps as the general path's, fnt_fentry_enter
 * in runtime/fentry.c): recording on with no filter and no call sites, the
 * thread on its own stack with room on its shadow stack and in its chunk,
 * the guard free, the cycle counter in use, the function in the chunk's
 * address cache and a short pause.  Then the entry event, the shadow push
 * and the swap of the return address at \slot(%rsp) for the return
 * trampoline.  The caller has pushed the six registers this uses
 * (SCRATCH_PUSH) and put the function in %rdi; otherwise nothing is changed
 * and it goes to \slow. */
.macro ENTER_ASM slot, slow, id
	ENTER_READY \slot, \slow, .L\id\()_bail
	EVENT_ASM 0, %rdi, .L\id\()_bail, \id  /* FNT_K_ENTRY */
	ENTER_DONE \slot, $0
.endm

/* ENTER_ASM's cold part, which the caller places after its return, with
 * the stack as ENTER_ASM had it: the NEW event and the way out to \slow
 * with nothing changed. */
.macro ENTER_ASM_COLD slow, id
	EVENT_NEW_ASM 0, %rdi, .L\id\()_bail, \id
.L\id\()_bail:
	movl $0, %fs:T_BUSY(%rsi)
	jmp \slow
.endm

/* ---- the same when some function has values to capture ----
 * With the nine general registers pushed (GP_PUSH: struct fnt_regs at
 * 0(%rsp)), the common entry and exit in assembly too, the values
 * included, as the general path writes them (values_fast in
 * runtime/fentry.h, with every item a fixed-size word): recording on with
 * no filter and no call sites (fnt_fast_off is A_FAST_ARGS alone), the
 * thread ready as for ENTER_ASM and EXIT_ASM, and the function's list
 * plain (fixed-size words of general registers or the stack: L_PLAIN).
 * Otherwise nothing is changed and the caller pops the frame and goes on
 * to the general path. */

/* fn's plan (fnt_argspec_find) into %r9, 0 for none.  Uses %rax, %rcx,
 * %rdx and %r10.  The table is never more than half full (argspec.c), so
 * the probe meets an empty entry. */
.macro PLAN_FIND fn, id
	xor %r9d, %r9d
	mov fnt_argspec_table(%rip), %r10
	test %r10, %r10
	jz .L\id\()_found
	movabs $0x9E3779B97F4A7C15, %rax
	imul \fn, %rax
	shr $A_SPEC_SHIFT, %rax           /* fnt_argspec_hash */
.L\id\()_probe:
	lea (%rax,%rax,2), %rcx
	mov S_ADDR(%r10,%rcx,8), %rdx
	cmp %rdx, \fn
	je .L\id\()_match
	test %rdx, %rdx
	jz .L\id\()_found
	add $1, %eax
	and $A_SPEC_MASK, %eax
	jmp .L\id\()_probe
.L\id\()_match:
	mov S_PLAN(%r10,%rcx,8), %r9
.L\id\()_found:
.endm

/* Whether the list at \list(%r9) fits the chunk whose write position is
 * %r8 in its worst case (values_fast's bound: a NEW event's 11 bytes, the
 * record's head, length and body, and 8 bytes of zeros); a jump to \bail
 * if not, or if the list is not plain.  Uses %rax, %rcx, %rdx. */
.macro VALUES_ROOM list, bail
	cmpb $0, \list+L_PLAIN(%r9)
	je \bail
	movzwl \list+L_MAX(%r9), %eax
	movzbl \list+L_LEN_LEN(%r9), %ecx
	lea 20(%r8,%rax), %rax
	add %rcx, %rax
	mov %fs:T_LIMIT(%rsi), %rdx
	add $A_CHUNK_SLACK, %rdx
	cmp %rdx, %rax
	ja \bail
.endm

/* With %r8 just past the event's head: the record (head byte \head) of the
 * list at \list(%r9), its length first, then each item's word from the
 * register frame at 0(%rsp) or the stack slot \slot(%rsp) + 8 * k, moved
 * on by its size (the next item overwrites the rest), zeros past the body,
 * and the head byte last; %r8 moves past the record.  Uses %rax, %rcx,
 * %rdx, %r10 and %r11. */
.macro VALUES_PUT list, head, slot, id
	movzwl \list+L_MAX(%r9), %edx
	movzbl \list+L_LEN_LEN(%r9), %ecx
	shl %cl, %rdx
	lea -1(%rcx), %eax
	bts %rax, %rdx                    /* fnt_varint_pack(max, len_len) */
	mov %rdx, 1(%r8)
	lea 1(%r8,%rcx), %r10             /* the body */
	xor %r11d, %r11d
	jmp .L\id\()_next
.L\id\()_item:
	movzbl \list+L_SRC(%r9,%r11), %eax
	test $A_PLAN_STACK, %al
	jnz .L\id\()_stack
	mov (%rsp,%rax,8), %rdx
.L\id\()_put:
	mov %rdx, (%r10)
	movzbl \list+L_SIZE(%r9,%r11), %eax
	add %rax, %r10
	add $1, %r11d
.L\id\()_next:
	movzbl \list+L_N(%r9), %eax
	cmp %eax, %r11d
	jb .L\id\()_item
	movq $0, (%r10)                   /* past the body: zeros, as past every event */
	movb $\head, (%r8)
	mov %r10, %r8
.endm

/* the rare source of VALUES_PUT, placed by the caller after its return */
.macro VALUES_PUT_COLD slot, id
.L\id\()_stack:
	and $(A_PLAN_STACK - 1), %eax
	mov \slot(%rsp,%rax,8), %rdx
	jmp .L\id\()_put
.endm

/* ENTER_ASM with some function's values to capture: the function in %rdi
 * and its return-address slot at \slot(%rsp), above the GP_PUSH frame.
 * The entry event, with its ARGS record when the function has a plan, the
 * shadow push with the plan (or 0) and the swap; or nothing changed and a
 * jump to \slow. */
.macro ENTER_VALUES_ASM slot, slow, id
	ENTER_READY \slot, \slow, .L\id\()_bail
	PLAN_FIND %rdi, \id\()p
	test %r9, %r9
	jz .L\id\()_ev
	VALUES_ROOM P_ARGS, .L\id\()_bail
.L\id\()_ev:
	EVENT_ASM 0, %rdi, .L\id\()_bail, \id  /* FNT_K_ENTRY */
	test %r9, %r9
	jz .L\id\()_novalues
	VALUES_PUT P_ARGS, A_ARGS_HEAD, \slot, \id\()v
.L\id\()_novalues:
	ENTER_DONE \slot, %r9
.endm

/* its cold part, placed by the caller after its return */
.macro ENTER_VALUES_ASM_COLD slot, slow, id
	VALUES_PUT_COLD \slot, \id\()v
	EVENT_NEW_ASM 0, %rdi, .L\id\()_bail, \id
.L\id\()_bail:
	movl $0, %fs:T_BUSY(%rsi)
	jmp \slow
.endm

/* EXIT_ASM with some function's values to capture, in the return
 * trampoline once it has made room for the real return address (72(%rsp)
 * after GP_PUSH; the caller's %rsp at 80(%rsp)): the exit event, with its
 * RETVAL record when the frame's plan has one, the pop and the real
 * return; or nothing changed but that slot, and a jump to \slow. */
.macro EXIT_VALUES_ASM slow
	FAST_CLAIM 80, \slow
	EXIT_FRAME 72, .Lxv_bail
	mov E_PLAN(%rdi), %r9
	test %r9, %r9
	jz .Lxv_ev
	/* the return list in brief, in the plan's line the entry read */
	movzbl P_RET1+R1_KIND(%r9), %eax
	test %eax, %eax
	je .Lxv_none                            /* FNT_RET1_NONE: no return value to capture */
	cmp $1, %eax
	je .Lxv_ev                              /* FNT_RET1_ONE: one word, which always fits */
	VALUES_ROOM P_RET, .Lxv_bail
	jmp .Lxv_ev
.Lxv_none:
	xor %r9d, %r9d
.Lxv_ev:
	mov E_RET(%rdi), %rax
	mov %rax, 72(%rsp)
	mov E_FN(%rdi), %rdi
	EVENT_ASM 1, %rdi, .Lxv_bail, xv      /* FNT_K_EXIT */
	test %r9, %r9
	jz .Lxv_novalues
	cmpb $1, P_RET1+R1_KIND(%r9)
	jne .Lxv_list
	/* FNT_RET1_ONE: the RETVAL record of one word, as VALUES_PUT writes it:
	 * its 1-byte length, the register's word moved on by its size, zeros */
	movzbl P_RET1+R1_SRC(%r9), %eax
	mov (%rsp,%rax,8), %rdx
	mov %rdx, 2(%r8)
	movzbl P_RET1+R1_SIZE(%r9), %eax
	lea 1(%rax,%rax), %ecx            /* fnt_varint_pack(size, 1) */
	mov %cl, 1(%r8)
	lea 2(%r8,%rax), %r10
	movq $0, (%r10)
	movb $A_RETVAL_HEAD, (%r8)
	mov %r10, %r8
.Lxv_novalues:
	EXIT_DONE
	GP_POP
	RETURN_JMP
	.cfi_adjust_cfa_offset 80
	VALUES_PUT_COLD 80, xvv
.Lxv_list:
	VALUES_PUT P_RET, A_RETVAL_HEAD, 80, xvv
	jmp .Lxv_novalues
	EVENT_NEW_ASM 1, %rdi, .Lxv_bail, xv
.Lxv_bail:
	movl $0, %fs:T_BUSY(%rsi)
	jmp \slow
.endm

/* The vector state beyond xmm0-15 (runtime/xstate.c): when XCR0 enables
 * AVX and the upper halves of ymm0-15 or zmm0-15 are in use (XGETBV 1; or
 * always, where the processor cannot tell), an area of fnt_xsave_size
 * bytes below %rsp, 64-byte aligned, its header zeroed (XRSTOR wants its
 * reserved bytes 0, which XSAVE(C) does not write), saved by XSAVEC (or
 * XSAVE) with that mask; its address in %rcx, else 0.  With %rbp the
 * frame's base and %rax, %rcx and %rdx at -8, -16 and -24(%rbp). */
.macro XSTATE_SAVE
	push %rax
	push %rcx
	push %rdx
	xor %ecx, %ecx
	mov fnt_xsave_mask(%rip), %eax
	test %eax, %eax
	jz 2f                               /* nothing beyond xmm0-15, or not known yet */
	testb $A_XSAVE_INUSE, fnt_xsave_how(%rip)
	jz 1f
	mov $1, %ecx
	xgetbv                              /* XINUSE & XCR0 */
	xor %ecx, %ecx
	test $A_XSAVE_UPPER, %eax
	jz 2f                               /* the upper halves all 0: the usual case */
1:	mov fnt_xsave_size(%rip), %ecx
	sub %rcx, %rsp
	and $-64, %rsp
	xor %ecx, %ecx
	mov %rcx, 512(%rsp)
	mov %rcx, 520(%rsp)
	mov %rcx, 528(%rsp)
	mov %rcx, 536(%rsp)
	mov %rcx, 544(%rsp)
	mov %rcx, 552(%rsp)
	mov %rcx, 560(%rsp)
	mov %rcx, 568(%rsp)
	mov fnt_xsave_mask(%rip), %eax
	xor %edx, %edx
	testb $A_XSAVE_COMPACT, fnt_xsave_how(%rip)
	jz 3f
	xsavec (%rsp)
	jmp 4f
3:	xsave (%rsp)
4:	mov %rsp, %rcx
2:
.endm

.macro SAVE_ALL
	push %rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	mov %rsp, %rbp
	.cfi_def_cfa_register %rbp
	XSTATE_SAVE
	and $-16, %rsp
	sub $336, %rsp
	mov %rcx, A_REGS_XSTATE(%rsp)
	mov -8(%rbp), %rax
	mov -16(%rbp), %rcx
	mov -24(%rbp), %rdx
	mov %rdi, 0(%rsp)
	mov %rsi, 8(%rsp)
	mov %rdx, 16(%rsp)
	mov %rcx, 24(%rsp)
	mov %r8, 32(%rsp)
	mov %r9, 40(%rsp)
	mov %rax, 48(%rsp)
	mov %r10, 56(%rsp)
	mov %r11, 64(%rsp)
	movaps %xmm0, 80(%rsp)
	movaps %xmm1, 96(%rsp)
	movaps %xmm2, 112(%rsp)
	movaps %xmm3, 128(%rsp)
	movaps %xmm4, 144(%rsp)
	movaps %xmm5, 160(%rsp)
	movaps %xmm6, 176(%rsp)
	movaps %xmm7, 192(%rsp)
	movaps %xmm8, 208(%rsp)
	movaps %xmm9, 224(%rsp)
	movaps %xmm10, 240(%rsp)
	movaps %xmm11, 256(%rsp)
	movaps %xmm12, 272(%rsp)
	movaps %xmm13, 288(%rsp)
	movaps %xmm14, 304(%rsp)
	movaps %xmm15, 320(%rsp)
.endm

.macro GP_PUSH
	push %r11
	.cfi_adjust_cfa_offset 8
	push %r10
	.cfi_adjust_cfa_offset 8
	push %rax
	.cfi_adjust_cfa_offset 8
	push %r9
	.cfi_adjust_cfa_offset 8
	push %r8
	.cfi_adjust_cfa_offset 8
	push %rcx
	.cfi_adjust_cfa_offset 8
	push %rdx
	.cfi_adjust_cfa_offset 8
	push %rsi
	.cfi_adjust_cfa_offset 8
	push %rdi
	.cfi_adjust_cfa_offset 8
.endm

.macro GP_POP
	pop %rdi
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	pop %rdx
	.cfi_adjust_cfa_offset -8
	pop %rcx
	.cfi_adjust_cfa_offset -8
	pop %r8
	.cfi_adjust_cfa_offset -8
	pop %r9
	.cfi_adjust_cfa_offset -8
	pop %rax
	.cfi_adjust_cfa_offset -8
	pop %r10
	.cfi_adjust_cfa_offset -8
	pop %r11
	.cfi_adjust_cfa_offset -8
.endm

.macro RESTORE_ALL
	mov A_REGS_XSTATE(%rsp), %rcx
	test %rcx, %rcx
	jz 1f
	mov fnt_xsave_mask(%rip), %eax
	xor %edx, %edx
	xrstor (%rcx)
1:	mov 0(%rsp), %rdi
	mov 8(%rsp), %rsi
	mov 16(%rsp), %rdx
	mov 24(%rsp), %rcx
	mov 32(%rsp), %r8
	mov 40(%rsp), %r9
	mov 48(%rsp), %rax
	mov 56(%rsp), %r10
	mov 64(%rsp), %r11
	movaps 80(%rsp), %xmm0
	movaps 96(%rsp), %xmm1
	movaps 112(%rsp), %xmm2
	movaps 128(%rsp), %xmm3
	movaps 144(%rsp), %xmm4
	movaps 160(%rsp), %xmm5
	movaps 176(%rsp), %xmm6
	movaps 192(%rsp), %xmm7
	movaps 208(%rsp), %xmm8
	movaps 224(%rsp), %xmm9
	movaps 240(%rsp), %xmm10
	movaps 256(%rsp), %xmm11
	movaps 272(%rsp), %xmm12
	movaps 288(%rsp), %xmm13
	movaps 304(%rsp), %xmm14
	movaps 320(%rsp), %xmm15
	mov %rbp, %rsp
	pop %rbp
.endm

/* 0(%rsp): return address into the function (just past the call),
 * 8(%rsp): the function's own return address (the slot swapped on exit) */
	.globl __fentry__
	.type __fentry__, @function
__fentry__:
	.cfi_startproc
	cmpl $0, fnt_fast_off(%rip)
	jne 3f                            /* (below: values to capture somewhere, or the general path) */
	SCRATCH_PUSH
	mov 48(%rsp), %rdi                /* address just past the call in the function */
	cmpw $0x5a41, (%rdi)
	je 6f                             /* `pop %r10` next: a nested function's (fentry_saves_chain) */
	/* the function's first byte (fentry_fn) by branches, which the
	 * processor predicts (a program's functions mostly begin alike), not
	 * by a chain of loads and moves that the rest would wait for */
	cmpw $0x15ff, -6(%rdi)            /* a 6-byte call through the GOT (gcc's), or a 5-byte one */
	je 7f
	sub $5, %rdi
8:	cmpl $0xfa1e0ff3, -4(%rdi)        /* after an endbr64 */
	je 9f
5:	ENTER_ASM 56, 6f, fe
	SCRATCH_POP
	ret
	.cfi_adjust_cfa_offset 48
7:	sub $6, %rdi
	jmp 8b
9:	sub $4, %rdi
	jmp 5b
	ENTER_ASM_COLD 6f, fe
6:	SCRATCH_POP
	jmp 1f
3:	cmpl $A_FAST_ARGS, fnt_fast_off(%rip)
	jne 1f                            /* something else than values asks for C */
	/* values to capture: the general registers, as struct fnt_regs begins */
	GP_PUSH
	mov 72(%rsp), %rdi                /* address just past the call in the function */
	cmpw $0x5a41, (%rdi)
	je 12f                            /* a nested function's */
	cmpw $0x15ff, -6(%rdi)            /* the function's first byte, as above */
	je 17f
	sub $5, %rdi
18:	cmpl $0xfa1e0ff3, -4(%rdi)
	je 19f
15:	ENTER_VALUES_ASM 80, 12f, fv
	GP_POP
	ret
	.cfi_adjust_cfa_offset 72
17:	sub $6, %rdi
	jmp 18b
19:	sub $4, %rdi
	jmp 15b
	ENTER_VALUES_ASM_COLD 80, 12f, fv
12:	GP_POP
1:
	SAVE_ALL
	mov %rsp, %rdi              /* struct fnt_regs * */
	mov 8(%rbp), %rsi           /* address just past the call in the function */
	lea 16(%rbp), %rdx          /* the function's return-address slot */
	call fnt_fentry_enter
	RESTORE_ALL
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size __fentry__, . - __fentry__

/* -P on code built without instrumentation (runtime/prologue.c): a
 * function's first instructions were replaced by a jmp to its trampoline,
 * `.quad fn; call <stub>; moved instructions`, whose call lands here with,
 * at 0(%rsp), the address of the moved instructions (13 bytes past the
 * .quad, which holds the function's first byte) and at 8(%rsp) the
 * function's own return address.  The entry is recorded as in fentry mode;
 * the return goes to the moved instructions, where the call predicts. */
	.globl fnt_prologue_entry
	.hidden fnt_prologue_entry
	.type fnt_prologue_entry, @function
fnt_prologue_entry:
	.cfi_startproc
	cmpl $0, fnt_fast_off(%rip)
	jne 3f
	SCRATCH_PUSH
	mov 48(%rsp), %rdi
	mov -13(%rdi), %rdi               /* the .quad before the call: the function */
	ENTER_ASM 56, 6f, pe
	SCRATCH_POP
	ret
	.cfi_adjust_cfa_offset 48
	ENTER_ASM_COLD 6f, pe
6:	SCRATCH_POP
	jmp 1f
3:	cmpl $A_FAST_ARGS, fnt_fast_off(%rip)
	jne 1f
	GP_PUSH
	mov 72(%rsp), %rdi
	mov -13(%rdi), %rdi               /* the function */
	ENTER_VALUES_ASM 80, 12f, pv
	GP_POP
	ret
	.cfi_adjust_cfa_offset 72
	ENTER_VALUES_ASM_COLD 80, 12f, pv
12:	GP_POP
1:
	SAVE_ALL
	mov %rsp, %rdi              /* struct fnt_regs * */
	mov 8(%rbp), %rsi
	mov -13(%rsi), %rsi         /* the function */
	lea 16(%rbp), %rdx          /* the function's return-address slot */
	call fnt_shadow_enter
	RESTORE_ALL
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size fnt_prologue_entry, . - fnt_prologue_entry

/* Library calls (runtime/libcall.c): a GOT slot's stub loads its
 * struct libcall_slot into %r11 (call-clobbered, never an argument) and
 * jumps here.  0(%rsp): the caller's return address.  The C side records
 * the entry, swaps the return address and hands back the real function,
 * which is jumped to with every register and the stack as the caller left
 * them.  The stub of a call whose return address must stay (exit, setjmp)
 * jumps to fnt_libcall_entry_slow instead, with its kind in %r11's low
 * bits. */
	.globl fnt_libcall_entry
	.hidden fnt_libcall_entry
	.globl fnt_libcall_entry_slow
	.hidden fnt_libcall_entry_slow
	.type fnt_libcall_entry, @function
fnt_libcall_entry:
	.cfi_startproc
	cmpl $0, fnt_fast_off(%rip)
	jne 3f
	SCRATCH_PUSH
	mov 8(%r11), %rdi                 /* the GOT slot: the event's function */
	ENTER_ASM 48, 6f, le
	SCRATCH_POP
	jmp *(%r11)                       /* the real function */
	.cfi_adjust_cfa_offset 48
	ENTER_ASM_COLD 6f, le
6:	SCRATCH_POP
	jmp 1f
3:	cmpl $A_FAST_ARGS, fnt_fast_off(%rip)
	jne 1f
	GP_PUSH
	mov 8(%r11), %rdi                 /* the GOT slot: the event's function */
	ENTER_VALUES_ASM 72, 12f, lv
	GP_POP                            /* (%r11 again) */
	jmp *(%r11)                       /* the real function */
	.cfi_adjust_cfa_offset 72
	ENTER_VALUES_ASM_COLD 72, 12f, lv
12:	GP_POP
1:
fnt_libcall_entry_slow:
	SAVE_ALL
	mov %rsp, %rdi              /* struct fnt_regs * */
	mov %r11, %rsi              /* struct libcall_slot *, and the kind */
	lea 8(%rbp), %rdx           /* the caller's return-address slot */
	call fnt_libcall_enter
	mov %rax, 64(%rsp)          /* the real function, into %r11 */
	RESTORE_ALL
	.cfi_def_cfa %rsp, 8
	jmp *%r11
	.cfi_endproc
	.size fnt_libcall_entry, . - fnt_libcall_entry

/* Reached by the `ret` of a traced function whose return address was
 * swapped: %rsp is its caller's, one past the slot.  The C code pops the
 * shadow stack and hands back the real return address, which goes into
 * the slot we leave below %rsp and is returned to. */
	.globl fnt_return_trampoline
	.hidden fnt_return_trampoline
	.type fnt_return_trampoline, @function
	.cfi_startproc
	.cfi_undefined rip
	/* a forced unwind that meets it (a cancelled thread's: glibc starts
	 * it past the _Unwind_ForcedUnwind stub below) lands in
	 * fnt_unwind_pad through this personality (runtime/fentry.c) */
	.cfi_personality 0x1b, fnt_trampoline_personality
	/* An unwinder that meets the trampoline as a return address looks
	 * up the address before it, which would be the end of __fentry__
	 * and its CFI (a walk through it dies).  This byte keeps that
	 * lookup inside the trampoline's own entry, whose undefined return
	 * address ends the walk there.  (The real address is in the
	 * thread's shadow stack, which no CFI expression can reach:
	 * backtrace() and _Unwind_Backtrace put the real ones back first,
	 * see runtime/fentry.c; gdb, with scripts/fntrace-gdb.py; perf's
	 * samples, afterwards, from the trace: fntrace perf-script.)  The
	 * byte has a name of its own, which debuggers show for the frame
	 * between a traced function and its caller.  perf-script finds the
	 * swapped frames by these two names (tool/perf-chain.c): keep them. */
	.type fnt_traced_return, @function
	.hidden fnt_traced_return
fnt_traced_return:
	nop
fnt_return_trampoline:
	sub $8, %rsp
	.cfi_adjust_cfa_offset 8
	cmpl $0, fnt_fast_off(%rip)
	jne 5f
	EXIT_ASM 3f
5:	cmpl $A_FAST_ARGS, fnt_fast_off(%rip)
	jne 3f                            /* something else than values asks for C */
	/* some function has values to capture (this frame a return value,
	 * maybe): the general registers, as struct fnt_regs begins */
	GP_PUSH
	EXIT_VALUES_ASM 6f
6:	GP_POP
3:
	SAVE_ALL
	mov %rsp, %rdi
	lea 16(%rbp), %rsi          /* the caller's %rsp after the return */
	call fnt_fentry_exit
	mov %rax, 8(%rbp)
	RESTORE_ALL
	RETURN_JMP
	.cfi_endproc
	.size fnt_return_trampoline, . - fnt_return_trampoline
	.size fnt_traced_return, . - fnt_traced_return

/* Where fnt_trampoline_personality sends an unwind that reached a swapped
 * return address: %rsp is the caller's, one past the slot; %rax the
 * exception.  The unwinder came here through the slot (it stored this
 * address there and returned to it): the trampoline goes back in it (the
 * personality found the slot's frame).  The unwind then resumes from the slot, as if
 * called from there, through the _Unwind_Resume stub, which puts the real
 * return addresses back (this slot's included) before the unwinder reads
 * them.  Its unwind entry is the trampoline's, without the personality:
 * the real return address is in the shadow stack, where no CFI reaches, so
 * a walk (a debugger's, an asynchronous cancel's) ends here, as it does in
 * the trampoline, rather than at an address with no entry at all. */
	.globl fnt_unwind_pad
	.hidden fnt_unwind_pad
	.type fnt_unwind_pad, @function
fnt_unwind_pad:
	.cfi_startproc
	.cfi_undefined rip
	sub $8, %rsp                /* onto the slot */
	.cfi_adjust_cfa_offset 8
	lea fnt_return_trampoline(%rip), %r11
	mov %r11, (%rsp)
	mov %rax, %rdi
	jmp fnt_unwind_resume_stub
	.cfi_endproc
	.size fnt_unwind_pad, . - fnt_unwind_pad

/* The unwinder must see real return addresses: before an exception (or a
 * forced unwind: pthread_exit, cancellation) starts walking the stack, put
 * the real ones back (fnt_unwind_begin); once a handler catches it, drop the
 * frames it left and swap the rest again (fnt_unwind_caught, given the
 * catching frame's %rsp).  Each stub tail-jumps to the real function with
 * the caller's arguments and return address untouched. */
.macro UNWIND_STUB name, note, slot
	.globl \name
	.type \name, @function
\name:
	.cfi_startproc
	push %rdi
	.cfi_adjust_cfa_offset 8
	push %rsi
	.cfi_adjust_cfa_offset 8
	push %rdx
	.cfi_adjust_cfa_offset 8
	push %rcx
	.cfi_adjust_cfa_offset 8
	push %rax
	.cfi_adjust_cfa_offset 8
	lea 48(%rsp), %rsi          /* the caller's %rsp after this call returns */
	mov $\slot, %edi
	call \note
	mov %rax, %r11
	pop %rax
	.cfi_adjust_cfa_offset -8
	pop %rcx
	.cfi_adjust_cfa_offset -8
	pop %rdx
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	pop %rdi
	.cfi_adjust_cfa_offset -8
	jmp *%r11
	.cfi_endproc
	.size \name, . - \name
.endm

	UNWIND_STUB _Unwind_RaiseException, fnt_unwind_begin, 0
	UNWIND_STUB _Unwind_Resume_or_Rethrow, fnt_unwind_begin, 1
	UNWIND_STUB _Unwind_ForcedUnwind, fnt_unwind_begin, 2
	.hidden fnt_unwind_resume_stub
fnt_unwind_resume_stub:
	UNWIND_STUB _Unwind_Resume, fnt_unwind_begin, 3
	UNWIND_STUB __cxa_begin_catch, fnt_unwind_caught, 4

	.section .note.GNU-stack, "", @progbits
