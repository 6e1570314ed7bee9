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

// "cycle": a throw 600 frames below its catch, in a recursion of three
// functions: the notes of the depths 512 above the throw are the cycle's,
// and one of them may be catcher's depth's modulo 512; the runtime took
// such a note for the landing frame's and closed calls still open
__attribute__((noinline)) int ca(int n);
__attribute__((noinline)) int cb(int n) { if (n == 0) throw 43; return ca(n - 1) + 1; }
__attribute__((noinline)) int cc(int n) { return cb(n) + 2; }
__attribute__((noinline)) int ca(int n) { return cc(n) + 3; }
__attribute__((noinline)) int handled(int e) { return e + 1; }
__attribute__((noinline)) int catcher(int n) { try { return ca(n); } catch (int e) { return handled(e); } }

int main(int argc, char **argv)
{
	if (argc > 1) {
		int r = catcher(200);
		leaf(r);
		return 0;
	}
	f(0, 1);
	leaf(3);
	return 0;
}
