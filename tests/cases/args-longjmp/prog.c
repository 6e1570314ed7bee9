/* -pg -mfentry: longjmp and siglongjmp (from a signal handler) leave frames
 * whose return address was swapped; signal handlers run traced code. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static jmp_buf jb;
static sigjmp_buf sjb;
static volatile int sink;

__attribute__((noinline)) void jumper(int depth)
{
	sink++;
	if (depth == 0)
		longjmp(jb, 7);
	jumper(depth - 1);
	sink++;
}

__attribute__((noinline)) int in_handler(int sig) { sink++; return sig; }

static void on_usr1(int sig)
{
	in_handler(sig);
}

static void on_usr2(int sig)
{
	in_handler(sig);
	siglongjmp(sjb, 1);
}

__attribute__((noinline)) void raiser(int depth, int sig)
{
	sink++;
	if (depth == 0)
		raise(sig);
	else
		raiser(depth - 1, sig);
	sink++;
}

__attribute__((noinline)) int after(int x) { sink++; return x + 1; }

int main(void)
{
	int r = setjmp(jb);
	if (!r)
		jumper(3);
	printf("longjmp %d\n", r);
	printf("%d\n", after(1));
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	raiser(2, SIGUSR1);
	if (!sigsetjmp(sjb, 1))
		raiser(2, SIGUSR2);
	printf("%d\n", after(2));
	return 0;
}
