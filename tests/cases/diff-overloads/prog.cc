// Overloads, which report and graph show under one name (n::f) unless they
// tell them apart.  report --diff and graph --diff matched functions by
// that name and module only: with an argument, f(double) runs first (and
// once more), and the diff paired this run's f(double) with the base's
// f(int) (calls 8, +5 and 3, -4 instead of +1 and 0), graph --diff had a
// "gone" n::f, and every row read "n::f".
#define NI __attribute__((noinline))
namespace n {
NI int f(int x) { return x + 1; }
NI int f(double x) { return (int)x + 2; }
}
int main(int argc, char **)
{
	int r = 0;
	if (argc > 1)
		r += n::f(0.5);
	for (int i = 0; i < 3; i++)
		r += n::f(i);
	for (int i = 0; i < 7; i++)
		r += n::f(1.0 * i);
	return r > 0 ? 0 : 1;
}
