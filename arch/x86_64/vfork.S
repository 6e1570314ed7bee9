/*
 * vfork.S - vfork() for traced programs.
 *
 * A vfork child runs on its parent's memory and thread-local storage until
 * it execs or exits, so the hooks would write its calls into the parent
 * thread's buffer (attributed to the parent, and left open there).  This
 * vfork holds the parent thread's re-entrancy guard for the child: the
 * child's calls are counted as lost (runtime/clone.c says which kind) and the
 * parent's stream is untouched; once the child is gone the parent gets its
 * guard back.  Like libc's, it keeps the return address in a register across
 * the system call, since the child reuses (and overwrites) the stack below
 * the caller's frame.  Only rdi, the call-clobbered registers and errno
 * are touched.
 */
	.text
	.globl vfork
	.type vfork, @function
	.p2align 4
vfork:
	.cfi_startproc
	sub $8, %rsp                 /* 16-byte aligned for the call */
	.cfi_adjust_cfa_offset 8
	call fnt_tls_share
	add $8, %rsp
	.cfi_adjust_cfa_offset -8
	pop %rdi                     /* the return address, out of the child's way */
	.cfi_adjust_cfa_offset -8
	.cfi_register %rip, %rdi
	mov $58, %eax                /* SYS_vfork */
	syscall
	push %rdi
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rip, 0
	test %rax, %rax
	jz 1f                        /* the child: straight back, nothing of ours runs */
	push %rax                    /* the parent, the child gone (or an error) */
	.cfi_adjust_cfa_offset 8
	call fnt_tls_unshare
	pop %rax
	.cfi_adjust_cfa_offset -8
	cmp $-4095, %rax
	jae 2f
1:	ret
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
