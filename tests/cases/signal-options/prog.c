/* signal-options: what --snapshot-signal and --patch-signal accept.  With
 * "segv" the program faults once (it dies of SIGSEGV unless a handler makes
 * the fault come back forever); with "usr2" it raises SIGUSR2 once. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) int work(int n)
{
	return n * 3 + 1;
}

int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 5; i++)
		s += work(i);
	if (argc > 1 && !strcmp(argv[1], "usr2"))
		raise(SIGUSR2);
	if (argc > 1 && !strcmp(argv[1], "segv"))
		*(volatile int *)(long)(s - s) = s;
	printf("sum %d\n", s);
	return 0;
}
