/* siglongjmp out of an instrumented signal handler three frames down, and a
 * longjmp back into a frame that is still live (setjmp in middle2) */
#include <setjmp.h>
#include <signal.h>
static sigjmp_buf env;
static jmp_buf env2;
__attribute__((noinline)) void handler(int sig) { (void)sig; siglongjmp(env, 1); }
__attribute__((noinline)) void work(int n) { if (n == 0) raise(SIGUSR1); else work(n - 1); }
__attribute__((noinline)) int other(int x) { __asm__ volatile(""); return x * 3; }
__attribute__((noinline)) void inner2(void) { longjmp(env2, 2); }
__attribute__((noinline)) int middle2(void) { if (setjmp(env2) == 0) { inner2(); return 0; } other(5); return 1; }
int main(void) {
	signal(SIGUSR1, handler);
	if (!sigsetjmp(env, 1)) work(2);
	other(1);
	middle2();
	return other(0);
}
