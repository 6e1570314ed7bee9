/* Clones by a `syscall` instruction, which no wrapper of libc's sees
 * (shared by the clone-asm, clone-near-stack and clone-fresh-thread cases),
 * and the work their children do.  RAW functions are not traced themselves. */
#include <sched.h>
#include <sys/syscall.h>

#define RAW __attribute__((noinline, no_instrument_function, patchable_function_entry(0, 0)))

/* a child's work: CALLS (defined by the program) calls of in_child */
__attribute__((noinline)) int in_child(int x) { __asm__ volatile(""); return x + 1; }

/* uses no libc function that needs TLS (errno) */
__attribute__((noinline)) int child_fn(void *arg)
{
	int s = 0;
	(void)arg;
	for (int i = 0; i < CALLS; i++)
		s = in_child(s);
	return s == CALLS ? 0 : 1;
}

/* clone(flags, stack): the child calls fn(arg) on that stack and exits
 * with its result, by system call */
RAW static long raw_clone(unsigned long flags, void *top, int (*fn)(void *), void *arg)
{
	long ret;
	void **sp = (void **)top;
	*--sp = arg;
	*--sp = (void *)fn;
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "pop %%rax\n\t"           /* the child: fn */
			 "pop %%rdi\n\t"           /* arg; %rsp is 16-byte aligned again */
			 "xor %%ebp, %%ebp\n\t"
			 "call *%%rax\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov $60, %%eax\n\t"       /* SYS_exit */
			 "syscall\n\t"
			 "hlt\n"
			 "1:"
			 : "=a"(ret)
			 : "0"((long)SYS_clone), "D"(flags), "S"(sp), "d"(0L), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}
