/* A handler on a sigaltstack that returns, entered from different depths:
 * three calls deep, then from main itself, then two deep.  Each time, its
 * calls show under the call it interrupted, and the calls after it where
 * they are.  (Before, the signal stack kept the depth it was first entered
 * at: the second handler showed three levels under main, and every later
 * call one level too deep.) */
#include <signal.h>
#include <stdio.h>

static char alt_stack[65536];
__attribute__((noinline)) void hleaf(int n) { __asm__ volatile("" ::"r"(n)); }
static void on_usr1(int sig) { hleaf(sig); }
__attribute__((noinline)) void leaf(int n) { __asm__ volatile("" ::"r"(n)); }
__attribute__((noinline)) void deep(int n)
{
	if (n == 0) {
		raise(SIGUSR1);
		return;
	}
	deep(n - 1);
	leaf(n);
}

int main(void)
{
	sigaltstack(&(stack_t){ .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) }, NULL);
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = on_usr1, .sa_flags = SA_ONSTACK }, NULL);
	deep(2);
	raise(SIGUSR1);
	leaf(7);
	deep(1);
	leaf(8);
	printf("done\n");
	return 0;
}
