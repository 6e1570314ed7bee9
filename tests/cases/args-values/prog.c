/* -pg -mfentry: the values -A/-R record, for every kind of item */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct big { long x, y, z; };
static int sink;

__attribute__((noinline)) int add(int a, int b) { sink++; return a + b; }
__attribute__((noinline)) long mul(long a, int b) { sink++; return a * b; }
__attribute__((noinline)) int count(const char *s, int times)
{
	int n = 0;
	sink++;
	for (int i = 0; i < times; i++)
		n += (int)strlen(s);
	return n;
}
__attribute__((noinline)) double scale(double x, float f) { sink++; return x * f; }
__attribute__((noinline)) struct big make(long x) { struct big b = { x, x + 1, x + 2 }; sink++; return b; }
__attribute__((noinline)) const char *pick(int i) { sink++; return i ? "picked" : NULL; }
__attribute__((noinline)) void *where(void *p) { sink++; return p; }
__attribute__((noinline)) int small(signed char c, unsigned char u, unsigned short h, unsigned x)
{
	sink++;
	return c + u + h + (int)x;
}
__attribute__((noinline)) bool flag(char c, bool b) { sink++; return c == 'y' && b; }
__attribute__((noinline)) long many(long a, long b, long c, long d, long e, long f, long g, long h)
{
	sink++;
	return a + b + c + d + e + f + g + h;
}

int main(void)
{
	static const char longstr[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-+=_!?";
	printf("%d\n", add(12, 18));
	printf("%d\n", add(-5, -7));
	printf("%ld\n", mul(-7000000000L, 3));
	printf("%d\n", count("world", 3));
	printf("%d\n", count(NULL, 0));
	printf("%d\n", count((const char *)16, 0));
	printf("%d\n", count(longstr, 1));
	printf("%d\n", count("tab\there \"q\"", 1));
	printf("%g\n", scale(2.5, 1.5f));
	printf("%g\n", scale(-0.1, 3.0f));
	printf("%ld\n", make(4).z);
	printf("%s\n", pick(1));
	printf("%p\n", pick(0));
	printf("ptr %p\n", where(&sink));
	printf("%d\n", small(-3, 200, 65535, 0xdeadbeef));
	printf("%d\n", flag('y', true));
	printf("%ld\n", many(1, 2, 3, 4, 5, 6, 7, 8));
	return 0;
}
