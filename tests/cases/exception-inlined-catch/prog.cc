// C++ exceptions caught in functions the compiler inlined (always_inline,
// so that every build inlines them): clang puts the landing pad of the
// catch in the caller's code, hooks and all; the calls the pad's inline
// chain names stay open (before, catcher closed as unwound at the throw
// and its catch ran one level too high, under main).  gcc calls the exit
// hooks of inlined functions while unwinding: those stay open too.
//   catcher: its catch calls handled(), which may throw (clang then starts
//            the pad with code outside the inlined ranges);
//   quiet:   not instrumented, inlined, around an inlined catching loud;
//   mid, inner: a catch two inlined levels down;
//   passthru: inlined into outer with only a cleanup (its Guard): it closes
//            as unwound where outer's catch lands.
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

__attribute__((noinline)) int handled(int e)
{
	if (e > 1000)
		throw e;        // never: but the compiler must allow for it
	return e * 10;
}

static inline __attribute__((always_inline)) int catcher(int n)
{
	try {
		return thrower(n);
	} catch (int e) {
		return handled(e);
	}
}

static inline __attribute__((always_inline)) int loud(int n)
{
	try {
		return thrower(n);
	} catch (int e) {
		return handled(e) + 1;
	}
}

__attribute__((no_instrument_function)) static inline __attribute__((always_inline)) int quiet(int n)
{
	return loud(n) + 1;
}

__attribute__((noinline)) int top(int n) { return quiet(n); }

static inline __attribute__((always_inline)) int inner(int n)
{
	try {
		return thrower(n);
	} catch (int e) {
		return handled(e) + 2;
	}
}

static inline __attribute__((always_inline)) int mid(int n) { return inner(n) + 1; }

__attribute__((noinline)) int nest(int n) { return mid(n); }

static inline __attribute__((always_inline)) int passthru(int n, int *count)
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

// "deep": a catching function inlined into f, at the bottom of a recursion
// 2,000 calls deep, catches 1,000 times: under record-time filters each of
// its returns is one the landing pad closed already
__attribute__((noinline)) int f(int n) { return catcher(n); }
__attribute__((noinline)) int rec(int n)
{
	int s = 0;
	if (n == 0) {
		for (int i = 0; i < 1000; i++)
			s += f(3 + (i & 1));
		return s;
	}
	return rec(n - 1) + 1;
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		std::printf("%d\n", rec(2000));
		return 0;
	}
	int r = catcher(5);
	r += top(4);
	r += nest(6);
	r += outer(7);
	r += after(r);
	std::printf("%d\n", r);
	return 0;
}
