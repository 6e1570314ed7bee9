/* -P '*' on hand-written functions that no prologue move can handle
 * safely, one for each refusal that patch-prologue does not meet: each is
 * refused with its reason, and those that can be called still run as
 * written. */
#include <stdio.h>

long call_next(void);           /* call 1f; 1: pop: a call to the next instruction */
long loop_first(long n);        /* loop: no rel32 form */
long jrcxz_first(long n);       /* jrcxz: no rel32 form */
long far_rip(long n);           /* lea of an address 2 GB above: out of the trampoline's reach */
long no_size(long n);           /* no .size: nothing safe can be said of it */
long in_plt(long n);            /* in .plt */
long in_own(long n);            /* in a section of its own, not .text */
long undecodable(void);         /* bytes no decoder knows (never called) */
long patched(long n);           /* an ordinary function: patched */
__asm__(".text\n"
	".globl call_next\n.type call_next,@function\ncall_next:\n"
	"  call 1f\n1: pop %rax\n  ret\n.size call_next,.-call_next\n"
	".globl loop_first\n.type loop_first,@function\nloop_first:\n"
	"  loop 2f\n  nop\n  nop\n  nop\n  nop\n2: mov %rdi,%rax\n  ret\n.size loop_first,.-loop_first\n"
	".globl jrcxz_first\n.type jrcxz_first,@function\njrcxz_first:\n"
	"  jrcxz 2f\n  nop\n  nop\n  nop\n  nop\n2: mov %rdi,%rax\n  ret\n.size jrcxz_first,.-jrcxz_first\n"
	".globl far_rip\n.type far_rip,@function\nfar_rip:\n"
	"  lea 0x7ffffff0(%rip),%rax\n  mov %rdi,%rax\n  ret\n.size far_rip,.-far_rip\n"
	".globl no_size\n.type no_size,@function\nno_size:\n"
	"  mov %rdi,%rax\n  add $1,%rax\n  ret\n"
	".globl undecodable\n.type undecodable,@function\nundecodable:\n"
	"  .byte 0x06\n  ret\n  nop\n  nop\n  nop\n.size undecodable,.-undecodable\n"
	".globl patched\n.type patched,@function\npatched:\n"
	"  mov %rdi,%rax\n  add $2,%rax\n  imul $3,%rax,%rax\n  ret\n.size patched,.-patched\n"
	/* appended to the linker's .plt, never reached from it */
	".section .plt,\"ax\",@progbits\n"
	".globl in_plt\n.type in_plt,@function\nin_plt:\n"
	"  mov %rdi,%rax\n  add $4,%rax\n  ret\n.size in_plt,.-in_plt\n"
	/* part of _init's body, which runs it once at start-up: nops */
	".section .init,\"ax\",@progbits\n"
	".globl in_init\n.type in_init,@function\nin_init:\n"
	"  nop\n  nop\n  nop\n  nop\n  nop\n  nop\n  nop\n  nop\n.size in_init,.-in_init\n"
	".section .fntrace_own,\"ax\",@progbits\n"
	".globl in_own\n.type in_own,@function\nin_own:\n"
	"  mov %rdi,%rax\n  add $5,%rax\n  ret\n.size in_own,.-in_own\n"
	".text\n");

int main(void)
{
	long v[7];                      /* one at a time: the order is the program's */
	v[0] = call_next() != 0;
	v[1] = loop_first(1);
	v[2] = jrcxz_first(2);
	v[3] = far_rip(3);
	v[4] = no_size(4);
	v[5] = in_plt(5);
	v[6] = in_own(6);
	printf("%ld %ld %ld %ld %ld %ld %ld %ld\n", v[0], v[1], v[2], v[3], v[4], v[5], v[6], patched(7));
	return 0;
}
