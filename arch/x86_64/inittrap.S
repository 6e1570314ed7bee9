/*
 * inittrap.S - the way into a dlopen'ed module's constructors through
 * runtime/modules.c's init traps.  Its DT_INIT was pointed at a thunk,
 * `mov $i, %r11; jmp *fnt_init_trap_entry`, while the dynamic linker
 * mapped it; the linker's call_init calls the thunk as the module's _init
 * (argc, argv, envp).  fnt_init_trap(i) records the new modules (library
 * calls hooked, pads patched) and hands back the real _init, which is
 * jumped to with the three arguments and the stack as they came.
 */
	.text
	.globl fnt_init_trap_entry
	.hidden fnt_init_trap_entry
	.type fnt_init_trap_entry, @function
	.p2align 4
fnt_init_trap_entry:
	.cfi_startproc
	push %rdi                    /* 8 mod 16 at entry: three pushes align the call */
	.cfi_adjust_cfa_offset 8
	push %rsi
	.cfi_adjust_cfa_offset 8
	push %rdx
	.cfi_adjust_cfa_offset 8
	mov %r11, %rdi
	call fnt_init_trap
	mov %rax, %r11
	pop %rdx
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	pop %rdi
	.cfi_adjust_cfa_offset -8
	jmp *%r11
	.cfi_endproc
	.size fnt_init_trap_entry, . - fnt_init_trap_entry

	.section .note.GNU-stack, "", @progbits
