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
 * rcx, rdx, rsi, rdi, r8-r11, xmm0-xmm15) around the C code, whatever it
 * does, and the stack is realigned to 16 bytes for it.
 *
 * Each first tries the common case.  When no function has values to
 * capture, that is the assembly of ENTER_ASM and EXIT_ASM below, which
 * saves the six registers it uses; when some function has, the C of
 * runtime/fastpath.c, built to use no vector register and to save every
 * general register it uses, with the nine general registers pushed for it
 * to read values from.  Either does the whole entry or exit or changes
 * nothing; then the general path below runs, with the full save.
 *
 * Frame (struct fnt_regs in runtime/fentry.c), from the aligned %rsp:
 *   0 rdi, 8 rsi, 16 rdx, 24 rcx, 32 r8, 40 r9, 48 rax, 56 r10, 64 r11,
 *   72 pad, 80 + 16*i xmm_i (i = 0..15): 336 bytes.
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

/* The return trampoline's plain case, whole, in assembly: the frame at the
 * top of the shadow stack is this return's (its slot just above %rsp), was
 * written, has no value to capture; recording is on with no filter; the
 * thread is on its own stack, its guard free, room in its chunk, the cycle
 * counter in use; the function is in the chunk's address cache and the
 * pause since the thread's last event is short.  Then: the exit event
 * (fnt_event_head's encoding, runtime/event.h), the pop, and the real
 * return.  Otherwise nothing is changed and it goes on at \slow, with the
 * stack as it found it.  The same steps as the second tier's C
 * (exit_frame and leave, runtime/fastpath.c); the guard is taken before
 * any of the thread's state is read, so that a signal handler's events
 * land either wholly before it or are turned away.  The six registers
 * it uses are saved, none else touched.  Fields by runtime/asm-offsets.h,
 * which fastpath.c checks against the structs. */
.macro EXIT_ASM slow
	SCRATCH_PUSH
	/* 48(%rsp): the slot for the real return address, the caller's %rsp at 56(%rsp) */
	FAST_CLAIM 56, .Lex_unclaimed
	mov %fs:T_SS_TOP(%rsi), %ecx
	sub $1, %ecx
	jb .Lex_bail                            /* an empty shadow stack */
	lea (%rcx,%rcx,4), %rdi
	shl $3, %rdi
	add %fs:T_SS(%rsi), %rdi          /* the top frame */
	lea 48(%rsp), %rax
	cmp %rax, E_SLOT(%rdi)
	jne .Lex_bail                           /* frames to drop first, or another stack's */
	testb $1, E_WRITTEN(%rdi)               /* FNT_SS_WRITTEN */
	je .Lex_bail
	/* (no value to capture: with no spec anywhere, no frame has a plan) */
	mov %fs:T_POS(%rsi), %r8
	cmp %fs:T_LIMIT(%rsi), %r8
	jae .Lex_bail
	/* the real return address into its slot now, which the general path
	 * overwrites if it is taken: the frame is then needed no more, and
	 * its register holds the function */
	mov E_RET(%rdi), %rax
	mov %rax, 48(%rsp)
	mov E_FN(%rdi), %rdi
	EVENT_ASM 1, %rdi, .Lex_bail, ex      /* FNT_K_EXIT */
	DEPTH_MOVE %rsi, -1, %eax, %rax, %rax  /* before the event counts */
	mov %r8, %fs:T_POS(%rsi)
	subl $1, %fs:T_SS_TOP(%rsi)
	movl $0, %fs:T_BUSY(%rsi)
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

/* The entry trampolines' plain case, whole, in assembly (the entry twin
 * of EXIT_ASM, with the same steps as the second tier's C, enter_args and
 * arrive in runtime/fastpath.c): recording on with no filter and no call sites, the
 * thread on its own stack with room on its shadow stack and in its chunk,
 * the guard free, the cycle counter in use, the function in the chunk's
 * address cache and a short pause.  Then the entry event, the shadow push
 * and the swap of the return address at \slot(%rsp) for the return
 * trampoline.  The caller has pushed the six registers this uses
 * (SCRATCH_PUSH) and put the function in %rdi; otherwise nothing is changed
 * and it goes to \slow. */
.macro ENTER_ASM slot, slow, id
	FAST_CLAIM \slot, \slow
	mov %fs:T_SS_TOP(%rsi), %ecx
	cmp %fs:T_SS_CAP(%rsi), %ecx
	je .L\id\()_bail                            /* full, or no shadow stack yet (its capacity is then 0) */
	mov %fs:T_POS(%rsi), %r8
	cmp %fs:T_LIMIT(%rsi), %r8
	jae .L\id\()_bail
	EVENT_ASM 0, %rdi, .L\id\()_bail, \id  /* FNT_K_ENTRY */
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
	/* E_PLAN is left as it is: with no spec anywhere it is 0 in every
	 * frame (shadow stacks are mapped zeroed, and a plan is only ever
	 * stored once some function has a spec, when this path is no longer
	 * taken) */
	shl $32, %rdx
	or $1, %rdx
	mov %rdx, E_WRITTEN(%r8)          /* written 1 and the depth, one store (E_DEPTH follows) */
	add $1, %ecx
	mov %ecx, %fs:T_SS_TOP(%rsi)
	lea fnt_return_trampoline(%rip), %rax
	mov %rax, \slot(%rsp)
	movl $0, %fs:T_BUSY(%rsi)
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

.macro SAVE_ALL
	push %rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	mov %rsp, %rbp
	.cfi_def_cfa_register %rbp
	and $-16, %rsp
	sub $336, %rsp
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
	mov 0(%rsp), %rdi
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
3:	testl $A_FAST_ARGS, fnt_fast_off(%rip)
	jz 1f
2:	/* values to capture: the general registers, as struct fnt_regs begins */
	GP_PUSH
	mov %rsp, %rdi
	mov 72(%rsp), %rsi          /* address just past the call in the function */
	lea 80(%rsp), %rdx          /* the function's return-address slot */
	call fnt_fentry_args_fast
	test %eax, %eax
	GP_POP
	jnz 1f
	ret
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
3:	testl $A_FAST_ARGS, fnt_fast_off(%rip)
	jz 1f
2:
	GP_PUSH
	mov %rsp, %rdi
	mov 72(%rsp), %rsi
	sub $13, %rsi               /* the .quad */
	lea 80(%rsp), %rdx          /* the function's return-address slot */
	call fnt_prologue_args_fast
	test %eax, %eax
	GP_POP
	jnz 1f
	ret
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
3:	testl $A_FAST_ARGS, fnt_fast_off(%rip)
	jz 1f
2:
	GP_PUSH
	mov %rsp, %rdi
	mov 8(%r11), %rsi
	lea 72(%rsp), %rdx          /* the caller's return-address slot */
	call fnt_args_fast
	test %eax, %eax
	GP_POP
	jnz 1f
	jmp *(%r11)
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
5:	testl $A_FAST_ARGS, fnt_fast_off(%rip)
	jz 3f
4:	/* some function has values to capture (this frame a return value, maybe):
	 * the general registers, as struct fnt_regs begins */
	GP_PUSH
	mov %rsp, %rdi
	lea 80(%rsp), %rsi          /* the caller's %rsp after the return */
	call fnt_exit_ret_fast
	test %rax, %rax
	jz 2f
	mov %rax, 72(%rsp)
	GP_POP
	RETURN_JMP
	.cfi_adjust_cfa_offset 80
2:
	GP_POP
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
