// -pg -mfentry: exceptions unwind through frames whose return address was
// swapped; they are caught, the program goes on, and the trace closes the
// frames the exception left where it was caught.
#include <cstdio>
#include <stdexcept>

static int sink;
static int (*volatile again)(int);   /* keeps the recursion real at -O2 */

__attribute__((noinline)) int thrower(int depth)
{
	sink++;
	if (depth == 0)
		throw std::runtime_error("boom");
	return again(depth - 1) + 1;
}

struct guard {
	~guard() { sink++; }
};

__attribute__((noinline)) int with_cleanup(int depth)
{
	guard g;
	sink++;
	return thrower(depth) + 1;
}

__attribute__((noinline)) int catcher(int depth)
{
	try {
		return with_cleanup(depth);
	} catch (const std::exception &e) {
		std::printf("caught %s\n", e.what());
		return -1;
	}
}

__attribute__((noinline)) int rethrower(int depth)
{
	try {
		return thrower(depth);
	} catch (...) {
		sink++;
		throw;
	}
}

__attribute__((noinline)) int outer(int depth)
{
	try {
		return rethrower(depth);
	} catch (const std::runtime_error &) {
		return -2;
	}
}

__attribute__((noinline)) int after(int x) { sink++; return x * 2; }

int main()
{
	again = thrower;
	std::printf("%d\n", catcher(3));
	std::printf("%d\n", after(21));
	std::printf("%d\n", outer(2));
	std::printf("%d\n", after(5));
	return 0;
}
