/*
 * coro.S - the makecontext wrapper (runtime/coro.c): makecontext is
 * variadic, so C cannot pass its arguments on; this stub notes the new
 * context's stack (fnt_coro_made, given the ucontext) and tail-jumps to
 * libc's makecontext with every argument register and the stack untouched.
 */
	.text
	.globl makecontext
	.type makecontext, @function
makecontext:
	.cfi_startproc
	push %rdi
	.cfi_adjust_cfa_offset 8
	push %rsi
	.cfi_adjust_cfa_offset 8
	push %rdx
	.cfi_adjust_cfa_offset 8
	push %rcx
	.cfi_adjust_cfa_offset 8
	push %r8
	.cfi_adjust_cfa_offset 8
	push %r9
	.cfi_adjust_cfa_offset 8
	push %rax
	.cfi_adjust_cfa_offset 8
	call fnt_coro_made          /* (ucp in %rdi) returns libc's makecontext */
	mov %rax, %r11
	pop %rax
	.cfi_adjust_cfa_offset -8
	pop %r9
	.cfi_adjust_cfa_offset -8
	pop %r8
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
	.size makecontext, . - makecontext

	.section .note.GNU-stack, "", @progbits
