/* A setgid program linked with -lfntrace.  Whoever starts it chooses its
 * environment: FNTRACE_DIR must not make it write where its own rights let
 * it, so in secure execution the runtime records nothing. */
#include <stdio.h>
#include <sys/auxv.h>

__attribute__((noinline)) int step(int x) { __asm__ volatile(""); return x + 1; }

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s = step(s);
	printf("secure %lu, %d\n", getauxval(AT_SECURE), s);
	return 0;
}
