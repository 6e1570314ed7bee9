/*
 * setjmp.S - trampolines for the setjmp and longjmp families.
 *
 * A longjmp skips the exit hooks of every frame it leaves, so the runtime
 * notes the call depth at each setjmp (keyed by the jmp_buf) and, at the
 * longjmp, records how many frames the jump unwinds.  getcontext is noted
 * the same way, for a setcontext back to it.  setjmp must return
 * twice into its real caller's frame, so it cannot be wrapped by a C
 * function: each trampoline saves the argument registers, calls the C note
 * function, restores them and tail-jumps to the libc function, leaving the
 * caller's return address in place.  The C code is not instrumented and
 * clobbers only call-clobbered registers, which the callers of these
 * functions expect.
 */
	.text

.macro TRAMPOLINE name, note, slot
	.globl \name
	.type \name, @function
\name:
	.cfi_startproc
	push %rdi
	.cfi_adjust_cfa_offset 8
	push %rsi
	.cfi_adjust_cfa_offset 8
	sub $8, %rsp                 /* keep the stack 16-byte aligned for the call */
	.cfi_adjust_cfa_offset 8
	mov %rsi, %rdx               /* (the second argument: __sigsetjmp's savemask) */
	mov $\slot, %esi
	call \note
	add $8, %rsp
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	pop %rdi
	.cfi_adjust_cfa_offset -8
	jmp *%rax                    /* the note function returns the libc function */
	.cfi_endproc
	.size \name, . - \name
.endm

	TRAMPOLINE _setjmp, fnt_note_setjmp, 0
	TRAMPOLINE setjmp, fnt_note_setjmp, 1
	TRAMPOLINE __sigsetjmp, fnt_note_setjmp, 2
	TRAMPOLINE longjmp, fnt_note_longjmp, 3
	TRAMPOLINE _longjmp, fnt_note_longjmp, 4
	TRAMPOLINE siglongjmp, fnt_note_longjmp, 5
	TRAMPOLINE __longjmp_chk, fnt_note_longjmp, 6
	/* getcontext returns again when setcontext (runtime/coro.c) goes back
	 * to its context on the same stack: a setjmp of its own kind */
	TRAMPOLINE getcontext, fnt_note_setjmp, 7

	.section .note.GNU-stack, "", @progbits
