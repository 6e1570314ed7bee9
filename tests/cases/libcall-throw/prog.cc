/* the program's own throw (a library call: __cxa_throw, and __cxa_rethrow
 * for `throw;`), an exception thrown by a qsort callback through qsort's
 * frame, and the calls after each catch at the depth they were made */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static int calls;

__attribute__((noinline)) static void thrower(int n)
{
	throw std::runtime_error(n == 1 ? "one" : "two");
}

__attribute__((noinline)) static int cmp_throw(const void *a, const void *b)
{
	if (++calls == 2)
		throw 7;
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static int own_throw(void)
{
	try {
		thrower(1);
	} catch (const std::exception &) {
		return 1;
	}
	return 0;
}

__attribute__((noinline)) static int through_qsort(void)
{
	int v[4] = { 4, 2, 3, 1 };
	try {
		qsort(v, 4, sizeof(int), cmp_throw);
	} catch (int e) {
		return e;
	}
	return 0;
}

__attribute__((noinline)) static void rethrow_it(void)
{
	try {
		thrower(2);
	} catch (...) {
		throw;
	}
}

__attribute__((noinline)) static int rethrown(void)
{
	try {
		rethrow_it();
	} catch (const std::runtime_error &) {
		return 2;
	}
	return 0;
}

__attribute__((noinline)) static int after(int x)
{
	return x + 1;
}

int main()
{
	int a = own_throw();
	int b = through_qsort();
	int c = rethrown();
	printf("%d %d %d %d\n", a, b, c, after(calls));
	return 0;
}
