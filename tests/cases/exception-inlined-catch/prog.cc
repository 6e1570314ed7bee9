// C++ exceptions caught in a function the compiler inlined: clang -O2
// inlines catcher() into main, hooks and all, so the landing pad of its
// catch is in main's code.  The calls inlined there that hold the pad
// (its inline chain, from the DWARF) stay open: before, catcher closed as
// unwound at the throw and its catch ran one level too high, under main.
// passthru(), inlined into outer(), has only a cleanup (its Guard): it
// stays open for the destructor, then closes as unwound where outer's
// catch lands.
#include <cstdio>

struct Guard {
	int *p;
	__attribute__((noinline)) ~Guard() { *p += 1; }
};

__attribute__((noinline)) int thrower(int n)
{
	if (n > 2)
		throw n;
	return n;
}

__attribute__((noinline)) int handled(int e) { return e * 10; }

static int catcher(int n)
{
	try {
		return thrower(n);
	} catch (int e) {
		return handled(e);
	}
}

static int passthru(int n, int *count)
{
	Guard g{count};
	return thrower(n) + 1;
}

__attribute__((noinline)) int outer(int n)
{
	int count = 0;
	try {
		return passthru(n, &count);
	} catch (int e) {
		return handled(e) + count;
	}
}

__attribute__((noinline)) int after(int n) { return n + 1; }

int main()
{
	int r = catcher(5);
	r += outer(7);
	r += after(r);
	std::printf("%d\n", r);
	return 0;
}
