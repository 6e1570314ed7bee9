/* record's options and pass-through: exit status, arguments, stdout/stderr,
 * --report, the default trace directory and its .old rotation, --clock */
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x * 2; }
int main(int argc, char **argv) {
	for (int i = 0; i < 7; i++) leaf(i);
	printf("argc %d arg1 [%s]\n", argc, argc > 1 ? argv[1] : "");
	fflush(stdout);
	fprintf(stderr, "to stderr\n");
	return 7;
}
