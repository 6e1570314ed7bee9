/*
 * vfork.S - vfork() for traced programs.
 *
 * A vfork child runs on its parent's memory and thread-local storage until
 * it execs or exits.  runtime/vfork.c gives it a thread state and a trace
 * file of its own for that time, and gives the parent its state back when
 * it resumes: fnt_vfork_prepare before the system call (its result, how the
 * child is handled, is kept in %rsi, which the kernel preserves),
 * fnt_vfork_child in the child, fnt_vfork_resume in the parent.  Like
 * libc's, this vfork keeps the return address in a register across the
 * system call, since the child reuses (and overwrites) the stack below the
 * caller's frame.  Only the call-clobbered registers and errno are
 * touched.
 */
	.text
	.globl vfork
	.type vfork, @function
	.p2align 4
vfork:
	.cfi_startproc
	sub $8, %rsp                 /* 16-byte aligned for the call */
	.cfi_adjust_cfa_offset 8
	call fnt_vfork_prepare
	add $8, %rsp
	.cfi_adjust_cfa_offset -8
	mov %eax, %esi               /* how: kept across the system call */
	pop %rdi                     /* the return address, out of the child's way */
	.cfi_adjust_cfa_offset -8
	.cfi_register %rip, %rdi
	mov $58, %eax                /* SYS_vfork */
	syscall
	push %rdi
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rip, 0
	mov %esi, %edi
	test %rax, %rax
	jnz 3f
	sub $8, %rsp                 /* the child: a state of its own, then back */
	.cfi_adjust_cfa_offset 8
	call fnt_vfork_child
	add $8, %rsp
	.cfi_adjust_cfa_offset -8
	xor %eax, %eax
	ret
3:	push %rax                    /* the parent, the child gone (or an error) */
	.cfi_adjust_cfa_offset 8
	call fnt_vfork_resume
	pop %rax
	.cfi_adjust_cfa_offset -8
	cmp $-4095, %rax
	jae 2f
	ret
2:	neg %eax
	push %rax
	.cfi_adjust_cfa_offset 8
	call __errno_location@PLT
	pop %rcx
	.cfi_adjust_cfa_offset -8
	mov %ecx, (%rax)
	mov $-1, %rax
	ret
	.cfi_endproc
	.size vfork, .-vfork

	.section .note.GNU-stack,"",@progbits
