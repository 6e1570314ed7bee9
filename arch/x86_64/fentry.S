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
 * Each first tries the common case (runtime/fastpath.c), which is built to
 * use no vector register and to save every general register it uses: it
 * needs only the registers it is passed arguments in saved, and either
 * does the whole entry or exit or changes nothing.  Otherwise the general
 * path below it runs, with the full save.
 *
 * Frame (struct fnt_regs in runtime/fentry.c), from the aligned %rsp:
 *   0 rdi, 8 rsi, 16 rdx, 24 rcx, 32 r8, 40 r9, 48 rax, 56 r10, 64 r11,
 *   72 pad, 80 + 16*i xmm_i (i = 0..15): 336 bytes.
 */
	.text

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

.macro FAST_PUSH
	push %rdi
	.cfi_adjust_cfa_offset 8
	push %rsi
	.cfi_adjust_cfa_offset 8
	push %rax
	.cfi_adjust_cfa_offset 8
.endm

.macro FAST_POP
	pop %rax
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	pop %rdi
	.cfi_adjust_cfa_offset -8
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
	cmpl $0, fnt_argspec_count(%rip)
	jne 2f                      /* values to capture somewhere: straight to the second tier */
	FAST_PUSH
	mov 24(%rsp), %rdi          /* address just past the call in the function */
	lea 32(%rsp), %rsi          /* the function's return-address slot */
	call fnt_fentry_fast
	cmp $1, %eax
	FAST_POP
	ja 2f
	je 1f
	ret
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
 * which calls here with, at 0(%rsp), the address of the trampoline's
 * `.quad fn` (the function's first byte) and at 8(%rsp) the function's own
 * return address.  The entry is recorded as in fentry mode; the return
 * skips the .quad, to the moved instructions. */
	.globl fnt_prologue_entry
	.hidden fnt_prologue_entry
	.type fnt_prologue_entry, @function
fnt_prologue_entry:
	.cfi_startproc
	cmpl $0, fnt_argspec_count(%rip)
	jne 2f
	FAST_PUSH
	mov 24(%rsp), %rdi          /* the .quad */
	lea 32(%rsp), %rsi          /* the function's return-address slot */
	call fnt_prologue_fast
	cmp $1, %eax
	FAST_POP
	ja 2f
	je 1f
	addq $8, (%rsp)             /* past the .quad */
	ret
2:
	GP_PUSH
	mov %rsp, %rdi
	mov 72(%rsp), %rsi          /* the .quad */
	lea 80(%rsp), %rdx          /* the function's return-address slot */
	call fnt_prologue_args_fast
	test %eax, %eax
	GP_POP
	jnz 1f
	addq $8, (%rsp)
	ret
1:
	SAVE_ALL
	mov %rsp, %rdi              /* struct fnt_regs * */
	mov 8(%rbp), %rsi
	mov (%rsi), %rsi            /* the function */
	lea 16(%rbp), %rdx          /* the function's return-address slot */
	call fnt_shadow_enter
	addq $8, 8(%rbp)            /* past the .quad */
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
 * them. */
	.globl fnt_libcall_entry
	.hidden fnt_libcall_entry
	.type fnt_libcall_entry, @function
fnt_libcall_entry:
	.cfi_startproc
	cmpl $0, fnt_argspec_count(%rip)
	jne 2f
	FAST_PUSH
	mov 8(%r11), %rdi           /* the GOT slot: the event's function */
	lea 24(%rsp), %rsi          /* the caller's return-address slot */
	call fnt_fast_enter         /* (keeps %r11, as every register) */
	cmp $1, %eax
	FAST_POP
	ja 2f
	je 1f
	jmp *(%r11)                 /* the real function */
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
	SAVE_ALL
	mov %rsp, %rdi              /* struct fnt_regs * */
	mov %r11, %rsi              /* struct libcall_slot * */
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
	cmpl $0, fnt_argspec_count(%rip)
	jne 4f
	push %rdi
	.cfi_adjust_cfa_offset 8
	push %rax                   /* the return value (%rdx, %xmm0-1, %st: untouched) */
	.cfi_adjust_cfa_offset 8
	lea 24(%rsp), %rdi          /* the caller's %rsp after the return */
	call fnt_exit_fast
	cmp $1, %rax
	jbe 1f
	mov %rax, 16(%rsp)
	pop %rax
	.cfi_adjust_cfa_offset -8
	pop %rdi
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_adjust_cfa_offset 16
1:
	pop %rax
	.cfi_adjust_cfa_offset -8
	pop %rdi
	.cfi_adjust_cfa_offset -8
	jb 3f
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
	ret
	.cfi_adjust_cfa_offset 72
2:
	GP_POP
3:
	SAVE_ALL
	mov %rsp, %rdi
	lea 16(%rbp), %rsi          /* the caller's %rsp after the return */
	call fnt_fentry_exit
	mov %rax, 8(%rbp)
	RESTORE_ALL
	ret
	.cfi_endproc
	.size fnt_return_trampoline, . - fnt_return_trampoline
	.size fnt_traced_return, . - fnt_traced_return

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
	UNWIND_STUB _Unwind_Resume, fnt_unwind_begin, 3
	UNWIND_STUB __cxa_begin_catch, fnt_unwind_caught, 4

	.section .note.GNU-stack, "", @progbits
