/* -pg -mfentry with values: the trampolines' assembly (ENTER_VALUES_ASM,
 * EXIT_VALUES_ASM) must write exactly what the general path writes.
 * Functions of every value size, stack arguments, a spec only of
 * arguments and one only of a return value, two return items, lists the
 * assembly leaves to C (a string, a float return), more functions than the
 * chunk's address cache has slots (NEW events), a deep recursion, and
 * library calls with values; 16 KiB chunks, so records cross chunk ends. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum colour { RED = 1, GREEN = 7, BLUE = 300 };
static volatile long sink;

#define F(n) __attribute__((noinline)) int f##n(int a, long b) { sink += b; return a * 3 + n; }
#define F10(d) F(d##0) F(d##1) F(d##2) F(d##3) F(d##4) F(d##5) F(d##6) F(d##7) F(d##8) F(d##9)
F10(1) F10(2) F10(3) F10(4) F10(5) F10(6) F10(7) F10(8)
#define C(n) acc += f##n(i, (long)i * n);
#define C10(d) C(d##0) C(d##1) C(d##2) C(d##3) C(d##4) C(d##5) C(d##6) C(d##7) C(d##8) C(d##9)

__attribute__((noinline)) char sizes(char c, short s, unsigned char u, bool b, enum colour e, void *p)
{
	sink += s + u + b + e + (p != NULL);
	return (char)(c + 1);
}
__attribute__((noinline)) long stack(int a, int b, int c, int d, int e, int f, long g, int h)
{
	return a + b + c + d + e + f + g + h;
}
__attribute__((noinline)) void onlyargs(int a, unsigned long b)
{
	sink += a + (long)b;
}
__attribute__((noinline)) int onlyret(void)
{
	return (int)(sink & 0xff) - 100;
}
__attribute__((noinline)) unsigned twice(unsigned x)
{
	return x * 0x01010101u;
}
__attribute__((noinline)) const char *text(const char *s, int n)
{
	return s + n;
}
__attribute__((noinline)) double half(int i)
{
	return i / 2.0;
}
__attribute__((noinline)) int down(int n)
{
	return n ? down(n - 1) + 1 : 0;
}

int main(void)
{
	long acc = 0;
	char buf[32];
	for (int i = 0; i < 400; i++) {
		C10(1) C10(2) C10(3) C10(4) C10(5) C10(6) C10(7) C10(8)
		acc += sizes((char)('a' + i % 26), (short)(i * 100 - 20000), (unsigned char)(250 + i % 6), i & 1,
			     i % 3 ? GREEN : BLUE, i % 5 ? buf : NULL);
		acc += stack(i, -i, 2, 3, 4, 5, -1234567890123L + i, 8 * i);
		onlyargs(-i, 1ul << (i % 64));
		acc += onlyret();
		acc += twice((unsigned)i);
		acc += (long)strlen(text("parity of values", i % 10));
		acc += (long)half(i % 4);
		if (i % 50 == 0)
			acc += down(300);
		snprintf(buf, sizeof(buf), "%d", i);
		acc += strtol(buf, NULL, 10);
	}
	printf("%ld\n", acc);
	return 0;
}
