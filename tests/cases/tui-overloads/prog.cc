// Overloads in the tui: its graph and report showed both as "n::f", two
// rows nothing told apart, where report and graph show n::f(int) and
// n::f(double).
#define NI __attribute__((noinline))
namespace n {
NI int f(int x) { return x + 1; }
NI int f(double x) { return (int)x + 2; }
}
int main()
{
	int r = 0;
	for (int i = 0; i < 3; i++)
		r += n::f(i);
	for (int i = 0; i < 7; i++)
		r += n::f(1.0 * i);
	return r > 0 ? 0 : 1;
}
