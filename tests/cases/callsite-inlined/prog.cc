// --callsite and functions the compiler inlines: -finstrument-functions
// still calls their hooks, with the call site of the function they were
// inlined into (work's, in main) rather than their own.  replay leaves
// [from ...] out for them (before, P::P and twice showed [from prog.cc:19],
// main's line; inner, inlined into outer inlined into work, showed it
// until the check compared with its caller's own recorded site).
// A direct recursion is not inlining: each down() was called from the
// line of the recursive call (before, every other level showed none).
#include <cstdio>

struct P {
	int x;
	__attribute__((always_inline)) P(int v) : x(v * 2) {}
};
static inline __attribute__((always_inline)) int twice(int v) { return v * 2; }
static inline __attribute__((always_inline)) int inner(int v) { return v + 3; }
static inline __attribute__((always_inline)) int outer(int v) { return inner(v) * 2; }
__attribute__((noinline)) int work(int v)
{
	P p(v);
	return twice(p.x) + outer(v) + 1;
}

__attribute__((noinline)) int down(int n)
{
	if (n == 0)
		return 0;
	return down(n - 1) + 1;
}

int main(int argc, char **)
{
	printf("%d\n", work(argc));
	printf("%d\n", down(argc + 4));
	return 0;
}
