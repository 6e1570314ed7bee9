/* work() calls step() of a shared library and puts() once per argument.
 * Built twice under two names: prog (with libstep.so) and prog-renamed
 * (the same source, with libstep2.so, a copy of the library under
 * another name) */
#include <stdio.h>

int step(int i);

__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		s += step(i);
		puts("step");
	}
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	return work(argc - 1) < 0;
}
