// FNT_SCOPE in uninstrumented C++: the scope ends when an exception leaves it
#include <stdexcept>
#include "fntrace.h"

__attribute__((noinline)) void thrower(int i)
{
	FNT_SCOPE_NAMED("thrower");
	if (i)
		throw std::runtime_error("x");
}

__attribute__((noinline)) void caller(int i)
{
	FNT_SCOPE();
	try {
		thrower(i);
	} catch (...) {
		fnt_mark("caught");
	}
}

int main()
{
	caller(0);
	caller(1);
	return 0;
}
