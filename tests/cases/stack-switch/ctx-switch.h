/* ctx_switch(save, to): a hand-written stack switch, as Boost.Context or a
 * green-thread library does it: save the callee-saved registers on the
 * current stack, store the stack pointer in *save, load `to`, restore the
 * registers saved there and return on that stack.  No function the
 * runtime could wrap.  (Shared by the stack-switch and fiber-threads
 * cases.) */
#ifndef CTX_SWITCH_H
#define CTX_SWITCH_H

void ctx_switch(void **save, void *to);
__asm__(".text\n"
	".globl ctx_switch\n"
	".type ctx_switch, @function\n"
	"ctx_switch:\n"
	"\tpush %rbp\n\tpush %rbx\n\tpush %r12\n\tpush %r13\n\tpush %r14\n\tpush %r15\n"
	"\tmov %rsp, (%rdi)\n"
	"\tmov %rsi, %rsp\n"
	"\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n\tpop %rbx\n\tpop %rbp\n"
	"\tret\n"
	".size ctx_switch, . - ctx_switch\n");

#endif
