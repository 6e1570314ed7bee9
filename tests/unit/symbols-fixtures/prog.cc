// test-symbols fixture: C++ names the short-name parser must get right:
// a namespace, a function template (its name has a return type), a class
// template method with a cv qualifier, operators spelled with < ( ) and <<,
// a conversion operator, a constructor and destructor, an anonymous
// namespace, a free operator template and a function returning a function
// pointer (a template: its return type is part of the name).  "@name" markers sit on the lines where the names are written.
#include <utility>
#define NI __attribute__((noinline))

namespace ns {
template <typename T> NI T twice(T x) /* @twice */
{
	return x + x;
}

NI int foo(int a, const char *s) /* @foo */
{
	return a + (s ? s[0] : 0);
}

template <typename K> struct Klass {
	K k;
	NI Klass(K v) : k(v) { __asm__ volatile(""); }
	NI ~Klass() { __asm__ volatile(""); }
	NI int method() const { return k.first + k.second; }
	NI bool operator<(const Klass &o) const { return k.first < o.k.first; }
	NI int operator()(int x) const { return x + k.first; }
	NI Klass &operator<<(int x) { k.second += x; return *this; }
	NI explicit operator bool() const { return k.first != 0; }
};

template <typename T> struct Box { T v; };
template <typename T> NI bool operator==(const Box<T> &a, const Box<T> &b) { return a.v == b.v; }
template <typename T> NI bool operator<(const Box<T> &a, const Box<T> &b) { return a.v < b.v; }

NI int plus_one(int x) { return x + 1; }
template <int N> NI int (*pick(int which))(int) { return which > N ? &plus_one : nullptr; }
}

namespace {
NI int helper(int x) /* @helper */
{
	return x - 1;
}
}

int main(int argc, char **)
{
	ns::Klass<std::pair<int, int> > a(std::make_pair(argc, 2)), b(std::make_pair(argc + 1, 3));
	int r = ns::twice<int>(argc) + ns::foo(argc, "x") + a.method();
	r += a < b;
	r += a(1);
	a << 2;
	r += bool(a);
	ns::Box<int> x{argc}, y{argc};
	r += x == y;
	r += x < y;
	int (*f)(int) = ns::pick<0>(argc);
	r += f ? f(1) : 0;
	r += helper(argc);
	return r == 0;
}
