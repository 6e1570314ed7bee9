/* library calls whatever the binding: built -fno-plt (calls go
 * `call *f@GOTPCREL(%rip)`, GLOB_DAT slots in the read-only GOT) and linked
 * -z now -z relro (full RELRO); check.py also records a lazily bound PLT
 * build with LD_BIND_NOW unset */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static int by_len(const void *a, const void *b)
{
	return (int)strlen(*(char *const *)a) - (int)strlen(*(char *const *)b);
}

int main(void)
{
	const char *w[3] = { "three", "a", "to" };
	qsort(w, 3, sizeof(w[0]), by_len);
	printf("%s %s %s\n", w[0], w[1], w[2]);
	return 0;
}
