// C++ names the short-name parser must get right: constructors and
// destructors of a class template with a nested template argument, operators
// whose spelling contains < > ( ), a conversion operator, a member template,
// a function returning a function pointer, a static member, and recursive
// template instances.  No std:: headers: their inline functions are traced at
// -O0 but not at gcc -O2, which would make the golden differ between builds.
#define NI __attribute__((noinline))
namespace outer { namespace inner {
template <typename T> struct Tag { T t; };
template <typename A, typename B> struct Pair {
	A a; B b;
	NI Pair(A x, B y) : a(x), b(y) { __asm__ volatile(""); }
	NI ~Pair() { __asm__ volatile(""); }
	NI bool operator<(const Pair &o) const { return a < o.a; }
	NI bool operator>>(int s) const { return (a >> s) != 0; }
	NI int operator()(int x) const { return x + a; }
	NI explicit operator bool() const { return a != 0; }
	template <typename C> NI C convert() const { return C(a); }
};
struct Plain { NI static int twice(int x) { return 2 * x; } };
NI int (*pick(int which))(int) { return which ? &Plain::twice : nullptr; }
} }
template <int N> NI int fact() { return N * fact<N - 1>(); }
template <> NI int fact<0>() { return 1; }
NI int apply(int (*f)(int), int x) { return f(x); }
int main() {
	typedef outer::inner::Pair<int, outer::inner::Tag<char> > P;
	int r = 0;
	{
		P p(3, outer::inner::Tag<char>{'c'});
		P q(4, outer::inner::Tag<char>{'d'});
		r += p < q;                    /* 1 */
		r += p >> 1;                   /* 1 */
		r += p(1);                     /* 4 */
		r += bool(p);                  /* 1 */
		r += (int)p.convert<double>(); /* 3 */
	}
	r += apply(outer::inner::pick(1), 5); /* 10 */
	r += fact<2>();                       /* 2 */
	return r == 22 ? 0 : 1;
}
