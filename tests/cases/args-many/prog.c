/* -A with more than 8 items: twelve arguments, six in registers and six on
 * the stack; one spec of 12 items, and two specs of 6 for one function */
__attribute__((noinline)) long twelve(long a, long b, long c, long d, long e, long f, long g, long h, long i,
				      long j, long k, long l)
{
	return a + b + c + d + e + f + g + h + i + j + k + l;
}
__attribute__((noinline)) long twice(long a, long b, long c, long d, long e, long f, long g, long h, long i,
				     long j, long k, long l)
{
	return a - b + c - d + e - f + g - h + i - j + k - l;
}
int main(void)
{
	long s = twelve(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12) + twice(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
	return s == 78 - 6 ? 0 : 1;
}
