// C++ exceptions through traced frames, each landing in a frame that goes
// on calling: caught a level up in a loop, caught after a cleanup (a
// destructor) in a frame between, rethrown.  clang's -finstrument-functions
// calls no exit hook for the frames an exception unwinds: every later call of
// the catching frame nested under them, one level per exception.
#include <cstdio>
#include <stdexcept>

struct Guard {
	int id;
	explicit Guard(int i) : id(i) {}
	__attribute__((noinline)) ~Guard() { std::printf("~Guard %d\n", id); }
};

__attribute__((noinline)) int check(int x)
{
	if (x > 2)
		throw std::runtime_error("x");
	return x;
}

__attribute__((noinline)) void leaf(int i) { std::printf("leaf %d\n", i); }

__attribute__((noinline)) void inner(int x) { if (x) throw std::logic_error("inner"); }

__attribute__((noinline)) void mid(int x)
{
	Guard g(x);
	inner(x);
	leaf(x);
}

__attribute__((noinline)) void again(int x)
{
	try {
		inner(x);
	} catch (...) {
		leaf(100 + x);
		throw;
	}
}

__attribute__((noinline)) int outer(int x)
{
	try {
		mid(x);
	} catch (const std::exception &) {
		leaf(10 + x);
	}
	try {
		again(x);
	} catch (...) {
		leaf(20 + x);
	}
	return x;
}

int main()
{
	int r = 0;
	for (int i = 0; i < 5; i++) {
		try {
			r += check(i);
		} catch (...) {
			r--;
		}
		leaf(i);
	}
	r += outer(1);
	r += outer(0);
	std::printf("%d\n", r);
	return 0;
}
