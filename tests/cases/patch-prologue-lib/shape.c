/* an uninstrumented shared library: -P patches it when the program starts */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif
volatile long shape_calls;

NOINLINE long shape_area(long w, long h)
{
	shape_calls++;
	return w * h;
}

NOINLINE long shape_sum(long n)
{
	long s = 0;
	shape_calls++;
	for (long i = 1; i <= n; i++)
		s += shape_area(i, i + 1);
	return s;
}
