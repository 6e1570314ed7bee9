/*
 * ideal-fentry.S - the recording floor of -pg -mfentry mode: what any tracer
 * that sees exits through a return-address swap must at least do.
 *
 * __fentry__ reads the cycle counter, stores 16 bytes (time<<1 | 0, function)
 * into a per-thread ring of 64 Ki events that wraps around, pushes (the
 * function's return address, the function) onto a per-thread shadow stack
 * and points the return address at ideal_return.  ideal_return pops the
 * shadow stack, stores (time<<1 | 1, function) and jumps back to the real
 * caller (a jump, as fntrace's return trampoline does, so that the
 * processor's return stack stays in step).  Only the registers it uses are saved (rax, rdx, rcx, r11;
 * rsi too on return), but those all are: gcc -fipa-ra lets a caller keep values in any call-clobbered
 * register (r11 included) across a call to a function it knows, unaware of the function's __fentry__
 * call, so a hook that clobbers one breaks -O2 programs (it used r11 unsaved until 2026-11-27; the
 * floor must be a hook that works): no argument capture, no filter, no file, no overflow
 * check (the bench's workloads are shallow), no exception or longjmp
 * handling.  Preloaded beside a -pg -mfentry build (LD_PRELOAD) like
 * libfntrace.so.  The first call of a thread allocates its ring and stack
 * in C (ideal_fentry_init), with every argument register saved.
 */
#define RING_BYTES (1 << 20)          /* 64 Ki events of 16 bytes */

	.section .tbss,"awT",@nobits
	.align 8
	.type ideal_tls, @object
	.size ideal_tls, 24
ideal_tls:                            /* 0: ring, 8: byte offset in ring, 16: shadow stack top */
	.zero 24

	.text
	.globl __fentry__
	.type __fentry__, @function
__fentry__:
	/* (%rsp): return into the function, 8(%rsp): the function's return */
	push %rax
	push %rdx
	push %rcx
	push %r11
	movq ideal_tls@gottpoff(%rip), %r11
	movq %fs:0(%r11), %rcx
	test %rcx, %rcx
	jz .Linit
.Lgo:
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
	add %rax, %rax                      /* kind 0: entry */
	movq %fs:8(%r11), %rdx
	movq %rax, (%rcx,%rdx)
	movq 32(%rsp), %rax
	sub $5, %rax                        /* the function: the call to __fentry__ is its first 5 bytes */
	movq %rax, 8(%rcx,%rdx)
	add $16, %rdx
	and $(RING_BYTES - 1), %rdx
	movq %rdx, %fs:8(%r11)
	movq %fs:16(%r11), %rcx             /* shadow push: (real return, function) */
	movq 40(%rsp), %rdx
	movq %rdx, (%rcx)
	movq %rax, 8(%rcx)
	add $16, %rcx
	movq %rcx, %fs:16(%r11)
	leaq ideal_return(%rip), %rax
	movq %rax, 40(%rsp)
	pop %r11
	pop %rcx
	pop %rdx
	pop %rax
	ret
.Linit:
	/* a thread's first call: keep every argument register (and the SSE
	 * ones: malloc may use them) across the C allocation */
	push %rdi
	push %rsi
	push %r8
	push %r9
	push %r10
	sub $136, %rsp                      /* 8 xmm, and 8 bytes: %rsp was 16-aligned at the entry (the call
	                                       into the function and the call here), 9 pushes leave it 8 off */
	movdqu %xmm0, 0(%rsp)
	movdqu %xmm1, 16(%rsp)
	movdqu %xmm2, 32(%rsp)
	movdqu %xmm3, 48(%rsp)
	movdqu %xmm4, 64(%rsp)
	movdqu %xmm5, 80(%rsp)
	movdqu %xmm6, 96(%rsp)
	movdqu %xmm7, 112(%rsp)
	call ideal_fentry_init@PLT
	movdqu 0(%rsp), %xmm0
	movdqu 16(%rsp), %xmm1
	movdqu 32(%rsp), %xmm2
	movdqu 48(%rsp), %xmm3
	movdqu 64(%rsp), %xmm4
	movdqu 80(%rsp), %xmm5
	movdqu 96(%rsp), %xmm6
	movdqu 112(%rsp), %xmm7
	add $136, %rsp
	pop %r10
	pop %r9
	pop %r8
	pop %rsi
	pop %rdi
	movq ideal_tls@gottpoff(%rip), %r11
	movq %fs:0(%r11), %rcx
	jmp .Lgo
	.size __fentry__, . - __fentry__

	.hidden ideal_return
	.globl ideal_return
	.type ideal_return, @function
ideal_return:
	/* the function returned here: rax/rdx (and xmm0/1) hold its value */
	sub $8, %rsp                        /* the real return address goes here */
	push %rax
	push %rdx
	push %rcx
	push %rsi
	push %r11
	movq ideal_tls@gottpoff(%rip), %r11
	movq %fs:16(%r11), %rcx
	sub $16, %rcx
	movq %rcx, %fs:16(%r11)
	movq (%rcx), %rax
	movq %rax, 40(%rsp)
	movq 8(%rcx), %rsi                  /* the function */
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
	lea 1(%rax,%rax), %rax              /* kind 1: exit */
	movq %fs:0(%r11), %rcx
	movq %fs:8(%r11), %rdx
	movq %rax, (%rcx,%rdx)
	movq %rsi, 8(%rcx,%rdx)
	add $16, %rdx
	and $(RING_BYTES - 1), %rdx
	movq %rdx, %fs:8(%r11)
	pop %r11
	pop %rsi
	pop %rcx
	pop %rdx
	pop %rax
	lea 8(%rsp), %rsp                   /* back with a jump: the function's ret already popped */
	jmp *-8(%rsp)                       /* the return stack, another ret would unbalance it */
	.size ideal_return, . - ideal_return

	.hidden ideal_fentry_tls
	.globl ideal_fentry_tls
	.type ideal_fentry_tls, @function
ideal_fentry_tls:                     /* for the C side: the thread's ideal_tls */
	movq ideal_tls@gottpoff(%rip), %rax
	add %fs:0, %rax
	ret
	.size ideal_fentry_tls, . - ideal_fentry_tls

	.section .note.GNU-stack,"",@progbits
