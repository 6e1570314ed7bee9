// gcc -O2 calls clones of functions whose argument is always the same
// constant: w::compute [clone .constprop.0] (_ZN1wL7computeEii.constprop.0)
// and the C function cscale.constprop.0.  The globs that name the source's
// function (-F w::compute, -N cscale, at read and at record time) matched
// no clone: 'matches no function that was called', and a record -F w::compute
// recorded nothing.  (gcc only: clang makes no such clones, and takes no
// -fipa-cp-clone, which the harness's -fno-ipa-cp would otherwise turn off.)
#define NI __attribute__((noinline))
namespace w {
NI static int compute(int x, int mode)
{
	int r = 0;
	for (int i = 0; i < x; i++)
		r += mode ? i * i : i;
	return r;
}
NI int driver(int n) { return compute(n, 1) + compute(n + 1, 1); }
}
extern "C" {
NI static int cscale(int x, int k) { return x * k + k; }
}
int main(int argc, char **)
{
	int r = w::driver(argc + 3) + cscale(argc, 3) + cscale(argc + 1, 3);
	return r == 44 + 6 + 9 ? 0 : 1;
}
