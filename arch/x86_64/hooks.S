/*
 * hooks.S - the common case of __cyg_profile_func_enter/exit (the
 * -finstrument-functions hooks) in assembly; everything else goes on in
 * the C of runtime/hooks.c, which starts over from nothing.
 *
 * Why assembly: the hooks are ordinary calls, so every call-clobbered
 * register is free in them (rax, rcx, rdx, r8-r11; rdi and rsi hold the
 * function and the call site).  The C hook needs five callee-saved
 * registers for its rare paths, and the compiler pushes and pops them on
 * every call, common case included.  Here the common case uses only the
 * free registers, touches no stack and makes no call.
 *
 * The steps and their order are those of fnt_event (runtime/event.h):
 * nothing process-wide asks for the C (fnt_fast_off: --callsite, filters,
 * no cycle counter, fnt_disable(); its bit for values to capture is the
 * trampolines' only), the stack pointer lies in
 * the thread's window (fnt_stack_check, the fork mask included), the
 * guard is free and is then taken before the thread's state is read,
 * room in the chunk, the pause since the thread's last event short; then
 * the event as fnt_event_head encodes it (its NEW form when the function
 * is not in the chunk's address cache, as fnt_event_new writes it), the
 * depth and then the position moved on (fnt_depth_move), the guard
 * released.  Any other case
 * jumps to the C hook with rdi and rsi as they came, the guard released
 * and nothing written.  Field offsets: runtime/asm-offsets.h, checked
 * against the structs by asm-offsets.c.
 */
#include "runtime/asm-offsets.h"
#include "arch/x86_64/event-asm.h"

	.text

.macro CYG_HOOK name, kind, step, slow
	.globl \name
	.type \name, @function
\name:
	.cfi_startproc
	testl $~A_FAST_ARGS, fnt_fast_off(%rip)  /* --callsite, filters, no cycle counter, fnt_disable() */
	jnz 9f
	mov fnt_self@gottpoff(%rip), %r11
	mov %rsp, %rax
	sub %fs:T_STK_LO(%r11), %rax
	mov %fs:T_STK_SPAN(%r11), %rdx
	and fnt_fork_page(%rip), %rdx
	cmp %rdx, %rax
	ja 9f                             /* another stack, a fork, no window yet */
	cmpl $0, %fs:T_BUSY(%r11)
	jne 9f                            /* a signal handler inside a hook */
	movl $1, %fs:T_BUSY(%r11)
	mov %fs:T_POS(%r11), %r8
	cmp %fs:T_LIMIT(%r11), %r8
	jae 8f                            /* the chunk is full (or none yet) */
	rdtsc
	shl $32, %rdx
	or %rax, %rdx
	mov %rdx, %r9                     /* now */
	sub %fs:T_LAST(%r11), %rdx        /* the pause */
	cmp $A_GAP_TICKS, %rdx
	jae 8f
	movabs $0x9E3779B97F4A7C15, %rcx
	imul %rdi, %rcx
	shr $A_CACHE_SHIFT, %rcx          /* the cache slot (fnt_slot) */
	cmp %fs:T_CACHE(%r11,%rcx,8), %rdi
	jne 7f
5:	shl $8, %rdx
	lea \kind(%rdx,%rcx,4), %rdx      /* d << 8 | slot << 2 | kind */
	HIT_PUT
6:	mov %r9, %fs:T_LAST(%r11)
	DEPTH_MOVE %r11, \step, %eax, %rax, %rax   /* before the event counts */
	mov %r8, %fs:T_POS(%r11)
	movl $0, %fs:T_BUSY(%r11)
	ret
7:	/* not in its home slot: the other slot of its set */
	xor $1, %ecx
	cmp %fs:T_CACHE(%r11,%rcx,8), %rdi
	je 5b
	/* in neither: the NEW event, unless a trigger may apply (a function
	 * with one is tagged in the cache) or the reader would reject the
	 * address */
	cmpl $0, fnt_trig_flags(%rip)
	jne 8f
	mov %rcx, %r10                    /* the other slot */
	NEW_ZIGZAG %rdi, %r11, 8f
	/* (%rsi, the call site, is not needed past the last way out) */
	NEW_SLOT %r10, %r11, %esi, %rsi
	mov %rcx, %r10                    /* the slot it fills */
	shl $8, %rdx
	lea (2 + 4 * \kind)(%rdx,%rsi,8), %rdx   /* d << 8 | other << 3 | is_exit << 2 | FNT_K_NEW */
	HIT_PUT                           /* under 2^21 as a hit's */
	mov %rax, %rdx                    /* the address's varint follows */
	VARINT_PUT
	/* the cache and the last NEW address once the event is written (a
	 * jump out of a signal handler finds them as they were while no
	 * byte of it is: setjmp.c) */
	mov %rdi, %fs:T_CACHE(%r11,%r10,8)
	mov %rdi, %fs:T_PREV_NEW(%r11)
	jmp 6b
8:	movl $0, %fs:T_BUSY(%r11)
9:	jmp \slow                         /* everything else, from the start */
	.cfi_endproc
	.size \name, . - \name
.endm

	CYG_HOOK __cyg_profile_func_enter, 0, 1, fnt_cyg_enter_c
	CYG_HOOK __cyg_profile_func_exit, 1, -1, fnt_cyg_exit_c

/* the same hooks under the public API's names (FNT_SCOPE) */
	.globl fnt__enter
	.type fnt__enter, @function
	.set fnt__enter, __cyg_profile_func_enter
	.globl fnt__exit
	.type fnt__exit, @function
	.set fnt__exit, __cyg_profile_func_exit

	.section .note.GNU-stack, "", @progbits
