// backtrace() in destructors that run while a C++ exception unwinds, and
// after: each sees its callers up to main (the ones an unwind's cleanup
// ran saw only the destructor's own frame: the runtime put back the
// return addresses the unwind found, not the destructor's, which it had
// swapped since)
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdexcept>

struct D {
	const char *name;
	__attribute__((noinline)) explicit D(const char *n) : name(n) {}
	__attribute__((noinline)) ~D()
	{
		void *pc[64];
		int n = backtrace(pc, 64), seen = 0;
		char **s = backtrace_symbols(pc, n);
		for (int i = 0; s && i < n; i++)
			seen |= strstr(s[i], "(main+") != NULL;
		printf("%s: main %s\n", name, seen ? "seen" : "missing");
		free(s);
	}
};

__attribute__((noinline)) void thrower() { D d("thrower"); throw std::runtime_error("x"); }
__attribute__((noinline)) void mid() { D d("mid"); thrower(); }

int main()
{
	try {
		mid();
	} catch (std::exception &) {
		puts("caught");
	}
	D d("main");
	return 0;
}
