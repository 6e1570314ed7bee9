/* a statically linked program, which nothing can be preloaded into, links
 * libfntrace.a; it must run unharmed, setjmp/longjmp included */
#include <setjmp.h>
static jmp_buf env;
__attribute__((noinline)) void deep(int n) { if (n == 0) longjmp(env, 1); deep(n - 1); }
__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 5; i++)
		s = work(s);
	if (!setjmp(env))
		deep(2);
	return s == 5 ? 0 : 1;
}
