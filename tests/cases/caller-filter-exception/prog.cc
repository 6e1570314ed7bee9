// record -C and -t and C++ exceptions: __cxa_throw (a library call) never
// returns, and under -pg -mfentry and patchable entries neither do the
// frames the exception leaves; they stayed in the trace where replay -C
// and replay -t leave them out.
#include <cstdio>

static volatile int sink;

__attribute__((noinline)) void target(int i) { sink += i; }
__attribute__((noinline)) void leaf(int i) { sink += i; }

__attribute__((noinline)) void thrower(int i)
{
	leaf(i);
	throw i;
}

__attribute__((noinline)) void skipped(int i)
{
	leaf(i);
	thrower(i);
}

__attribute__((noinline)) void good(int i)
{
	leaf(i);
	target(i);
}

__attribute__((noinline)) void run(void (*t)(int), int i)
{
	try {
		t(i);
	} catch (int) {
		sink += 1;
	}
}

int main()
{
	for (int i = 0; i < 3; i++) {
		run(skipped, i);
		run(good, i);
	}
	std::printf("%d\n", sink);
	return 0;
}
