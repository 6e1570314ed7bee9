// A C++ exception thrown inside the C++ library: std::locale's constructor
// (libstdc++, not inlined) throws std::runtime_error for a locale that does
// not exist, and the program catches it.  The library call is closed as
// unwound, the program goes on, and later library calls nest right.
#include <cstdio>
#include <locale>
#include <stdexcept>

__attribute__((noinline)) static int probe(const char *name)
{
	try {
		std::locale loc(name);
		return 1;
	} catch (const std::runtime_error &) {
		return -1;
	}
}

// the same one level deeper: gcc's exit hook runs in throw_in_lib's cleanup
// as the exception passes (clang's does not: its frame shows as unwound)
__attribute__((noinline)) static int throw_in_lib(const char *name)
{
	std::locale loc(name);
	return 1;
}

__attribute__((noinline)) static int probe_deep(const char *name)
{
	try {
		return throw_in_lib(name);
	} catch (const std::runtime_error &) {
		return -2;
	}
}

__attribute__((noinline)) static void report(int a, int b)
{
	std::printf("%d %d\n", a, b);
}

int main()
{
	int a = probe("no-such-locale.UTF-9");
	int b = probe("C");
	int c = probe_deep("no-such-locale.UTF-9");
	report(a, b + c);
	return 0;
}
