/* calls depend on argv[1]: a() n times, b() on odd i, c() once when n > 5 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int a(int i) { return i + 1; }
__attribute__((noinline)) int b(int i) { return i * 2; }
__attribute__((noinline)) int c(int i) { return i - 1; }
#ifdef REBUILT
__attribute__((noinline)) int d(int i) { return i ^ 5; }
#endif

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 4, s = 0;
	for (int i = 0; i < n; i++) {
		s += a(i);
		if (i % 2)
			s += b(i);
	}
	if (n > 5)
		s += c(n);
#ifdef REBUILT
	s += d(n);
#endif
	printf("%d\n", s);
	return 0;
}
