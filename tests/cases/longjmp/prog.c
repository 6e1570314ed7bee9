/* longjmp and siglongjmp out of nested calls */
#include <setjmp.h>
static jmp_buf env;
static sigjmp_buf senv;
__attribute__((noinline)) void deep(int n) { if (n == 0) longjmp(env, 1); deep(n - 1); }
__attribute__((noinline)) void sdeep(int n) { if (n == 0) siglongjmp(senv, 1); sdeep(n - 1); }
__attribute__((noinline)) int other(int x) { __asm__ volatile(""); return x * 3; }
int main(void) {
	if (!setjmp(env)) deep(3);
	other(1);
	if (!sigsetjmp(senv, 1)) sdeep(2);
	return other(0);
}
