/* Record-time filters and siglongjmp out of a handler that runs on a
 * sigaltstack, round after round: the jump lands on the main stack, whose
 * filter depth must go back to the setjmp's (before, each round left it
 * a few levels deeper, and once past -D every later call was lost). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
static sigjmp_buf sb;
static char alt_stack[65536];
__attribute__((noinline)) void leaf(int n) { __asm__ volatile("" ::"r"(n)); }
__attribute__((noinline)) void hdeep(int n) { if (n == 0) siglongjmp(sb, 1); hdeep(n - 1); leaf(n); }
static void on_usr1(int sig) { (void)sig; hdeep(2); }
__attribute__((noinline)) void spin(int n) { if (n == 0) { raise(SIGUSR1); return; } spin(n - 1); leaf(3); }
__attribute__((noinline)) void s3mid(void) { spin(3); }
__attribute__((noinline)) void s3(void) { if (!sigsetjmp(sb, 1)) s3mid(); leaf(9); }
/* "after": a handler on the sigaltstack returns, and setjmp is called
 * before any hook has seen the thread back on the main stack; a longjmp
 * there to it.  (Before, the buffer took the signal stack's depths: under
 * -pg the trace ended with main and outer open.) */
static jmp_buf jb;
static void on_usr2(int sig) { leaf(sig); }
__attribute__((noinline)) void b(void) { longjmp(jb, 1); }
__attribute__((noinline)) void a(void) { b(); leaf(4); }
__attribute__((noinline)) void outer(void)
{
	raise(SIGUSR2);
	if (!setjmp(jb))
		a();
	leaf(9);
}

int main(int argc, char **argv)
{
	int rounds = 12;
	sigaltstack(&(stack_t){ .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) }, NULL);
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = on_usr1, .sa_flags = SA_ONSTACK }, NULL);
	if (argc > 1) {
		sigaction(SIGUSR2, &(struct sigaction){ .sa_handler = on_usr2, .sa_flags = SA_ONSTACK }, NULL);
		outer();
		leaf(1);
		printf("after\n");
		return 0;
	}
	for (int r = 0; r < rounds; r++) {
		s3();
		leaf(2);
	}
	printf("%d rounds\n", rounds);
	return 0;
}
