/* -pg -mfentry: captured values written by the trampolines' fast path,
 * across many chunk ends (16 KiB chunks): two strings in one record (its
 * worst case needs a 2-byte length that short strings do not), long and
 * cut strings, integers, a stack argument and a float return value. */
#include <stdio.h>
#include <string.h>

static int sink;

__attribute__((noinline)) int two(const char *a, const char *b)
{
	sink++;
	return (int)(strlen(a) + strlen(b));
}
__attribute__((noinline)) long ints(long a, long b, long c, long d, long e, long f, long g)
{
	sink++;
	return a + b + c + d + e + f + g;
}
__attribute__((noinline)) double half(int i)
{
	sink++;
	return i / 2.0;
}

int main(void)
{
	static const char longstr[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-+=_!?";
	char num[16];
	long total = 0;
	for (int i = 0; i < 3000; i++) {
		snprintf(num, sizeof(num), "n%d", i % 10);
		total += two(num, i % 3 ? "x" : longstr);
		total += ints(i, -i, 1, 2, 3, 4, i % 7);
		total += (long)half(i % 4);
	}
	printf("%ld\n", total);
	return 0;
}
