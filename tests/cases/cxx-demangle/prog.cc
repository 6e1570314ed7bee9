// C++ names whose short form the old text scanner got wrong, and the four
// --demangle modes: templated operators with a space in their template
// arguments, a local class and a lambda inside a function with parameters,
// decltype(auto) and decltype(expr) return types, and a function template
// instantiated with std::map<std::string, int> (its short name uses the
// library's usual names).
#include <map>
#include <string>
#define NI __attribute__((noinline))
namespace geo {
template <typename T> struct Box {
	T w;
	NI T area() const { return w * w; }
};
template <typename T> NI bool operator!=(const Box<T> &a, const Box<T> &b) { return a.w != b.w; }
struct P { int v; };
template <typename A, typename B> NI bool operator==(P a, B b) { return a.v == (A)b; }
}
NI int outer(int x)
{
	struct Guard {
		int *p;
		NI ~Guard() { ++*p; }
	};
	int n = 0;
	{
		Guard g{&n};
	}
	auto add = [x](int y) NI { return x + y; };
	return add(n);
}
NI auto late(int x) -> decltype(auto) { return x + 1; }
template <typename T> NI decltype(auto) ident(T x) { return x; }
template <typename T> NI auto plus1(T x) -> decltype(x + 1) { return x + 1; }
template <typename M> NI int size_of(const M &m) { return (int)m.size(); }
int main()
{
	geo::Box<unsigned int> a{2}, b{3};
	std::map<std::string, int> m;
	int r = 0;
	r += a != b;                                  /* 1 */
	r += geo::operator==<int, long>(geo::P{4}, 4L); /* 1 */
	r += outer(1);                                /* 2 */
	r += late(1);                                 /* 2 */
	r += ident(0);                                /* 0 */
	r += plus1(2);                                /* 3 */
	r += (int)a.area();                           /* 4 */
	r += size_of(m);                              /* 0 */
	return r == 13 ? 0 : 1;
}
