// -A names C++ functions as the views show them: a template instance by its
// short name, a local class's member by its simple name, an overload by its
// full signature.
#define NI __attribute__((noinline))
template <typename T> NI int scale(T x, int k) { return (int)x * k; }
NI int pick(int x) { return x + 1; }
NI int pick(double x) { return (int)x + 2; }
NI int outer(int x)
{
	struct Local {
		NI static int twice(int y) { return 2 * y; }
	};
	return Local::twice(x);
}
int main()
{
	int r = scale<int>(3, 4) + pick(5) + pick(6.0) + outer(7); /* 12 + 6 + 8 + 14 */
	return r == 40 ? 0 : 1;
}
