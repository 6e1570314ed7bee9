// Report rows of distinct functions that share a name: two overloads of
// n::f, and a static helper() defined both here and in libhelp.so's help.cc.
// Two template overloads, whose rows show the signature without the return
// type (not "Box<int> mk<int>(int, int)").
// Text output tells them apart; csv and json carry signature, module, file.
#define NI __attribute__((noinline))
namespace n {
NI int f(int x) { return x + 1; }
NI int f(double x) { return (int)x + 2; }
}
template <class T> struct Box { T v; };
template <class T> NI Box<T> mk(T x, int y) { return Box<T>{x + y}; }
template <class T> NI Box<T> mk(T x, double y) { return Box<T>{x + (T)y}; }
NI static int helper(int x) { return x * 3; }
int help_call(int x);
int main()
{
	int r = n::f(1) + n::f(1) + n::f(2.0) + helper(1) + help_call(1); /* 2+2+4+3+5 */
	r += mk(1, 2).v + mk(1, 3.0).v;    /* 3+4 */
	return r == 23 ? 0 : 1;
}
