// C++ names: namespaces, templates, classes, operators, anonymous namespace
#include <cstdio>
namespace geo {
template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T get() const { return v; }
	__attribute__((noinline)) Box operator+(const Box &o) const { return Box{v + o.v}; }
};
__attribute__((noinline)) double area(double w, double h) { return w * h; }
template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }
}
namespace {
__attribute__((noinline)) int hidden(int x) { return x - 1; }
}
int main() {
	geo::Box<int> a{1}, b{2};
	int s = (a + b).get();
	double d = geo::area(2.0, 3.0) + geo::twice<double>(1.5);
	return (s == 3 && d == 9.0 && hidden(1) == 0 && geo::twice<int>(2) == 4) ? 0 : 1;
}
