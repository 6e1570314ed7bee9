// An exception thrown by a frame that, a moment before, recursed far deeper
// than the 512 depths the record-time filters note a function and a
// written depth for: the notes of the depths the exception leaves are the
// recursion's, older than the frames open.  The runtime took the
// note for the catching frame's and closed no frame at all: the frames the
// exception left stayed open, and the later calls nested inside them.
#include <cstdio>

__attribute__((noinline)) void leaf(int i) { std::printf("leaf %d\n", i); }

__attribute__((noinline)) void thrower(int x) { throw x; }

void h(int n, int mode);

// mode 0: recursion (f and h in turn); 1: the catching call
__attribute__((noinline)) void f(int n, int mode)
{
	if (mode == 0) {
		if (n > 0)
			h(n - 1, 0);
		return;
	}
	try {
		h(601, 2);      // down 602 depths and back, then throws
	} catch (int) {
		leaf(1);
	}
	leaf(2);
}

// mode 2: the recursion, then a throw from this frame
__attribute__((noinline)) void h(int n, int mode)
{
	if (n > 0)
		f(n - 1, 0);
	if (mode == 2)
		thrower(7);
}

int main()
{
	f(0, 1);
	leaf(3);
	return 0;
}
