/* long double arguments (in memory, 16-byte aligned stack words) and return
 * values (st(0)); reading st(0) at the return must leave the x87 stack and
 * its exception flags as they were: the program checks its own results */
#include <fenv.h>
#include <stdio.h>

__attribute__((noinline)) long double ld_mul(long double a, int n) { __asm__ volatile(""); return a * n; }
__attribute__((noinline)) long double ld_mix(double d, long double x, int i, long double y)
{
	__asm__ volatile("");
	return d + x + i + y;
}
__attribute__((noinline)) double after_ld(int a, long double x, double d, int b)
{
	__asm__ volatile("");
	return (double)x + d + a + b;
}
__attribute__((noinline)) long double seven(int a, int b, int c, int d, int e, int f, int g, long double x)
{
	__asm__ volatile("");
	return a + b + c + d + e + f + g + x;
}
__attribute__((noinline)) int not_ld(int x) { __asm__ volatile(""); return x + 1; }

int main(void)
{
	feclearexcept(FE_ALL_EXCEPT);
	long double r = ld_mul(1.5L, 3);
	r += ld_mix(0.25, 0.1L, 2, -1e300L * 1e300L);
	double a = after_ld(1, 2.5L, 0.5, 4);
	long double s = seven(1, 2, 3, 4, 5, 6, 7, 0.5L);
	int n = not_ld(41);     /* -R not_ld@retval/f80: st(0) is empty there */
	int bad = fetestexcept(FE_INVALID) != 0;
	printf("%Lg %g %Lg %d %d\n", r, a, s, n, bad);
	return !(r == 4.5L + (0.25L + 0.1L + 2 - 1e600L) && a == 8.0 && s == 28.5L && n == 42 && !bad);
}
