/* frames that do not return normally: longjmp skips deep()'s exits (unwound),
 * then the program aborts inside nested calls (they never return) */
#include <setjmp.h>
#include <stdlib.h>
static jmp_buf env;
__attribute__((noinline)) void deep(int n) { if (n == 0) longjmp(env, 1); deep(n - 1); }
__attribute__((noinline)) int fine(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void die_here(int x) { if (x > 0) abort(); }
__attribute__((noinline)) void nested(int x) { fine(x); die_here(x); fine(x); }
int main(int argc, char **argv) {
	(void)argv;
	if (!setjmp(env)) deep(3);
	fine(0);
	nested(argc);
	return 0;
}
