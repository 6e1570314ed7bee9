// --callsite and functions the compiler inlines: -finstrument-functions
// still calls their hooks, with the call site of the function they were
// inlined into (work's, in main) rather than their own.  replay leaves
// [from ...] out for them (before, P::P and twice showed [from prog.cc:19],
// main's line).
#include <cstdio>

struct P {
	int x;
	__attribute__((always_inline)) P(int v) : x(v * 2) {}
};
static inline __attribute__((always_inline)) int twice(int v) { return v * 2; }
__attribute__((noinline)) int work(int v)
{
	P p(v);
	return twice(p.x) + 1;
}

int main(int argc, char **)
{
	printf("%d\n", work(argc));
	return 0;
}
