// Read-time globs match the names record-time globs match: a template
// function by its name without template arguments, a class template's
// member likewise, and a mangled name.
#include <cstdio>

namespace geo {
template <class T> struct Box {
	T w, h;
	__attribute__((noinline)) T area() const { return w * h; }
};
template <class T> __attribute__((noinline)) T twice(T x) { return x * 2; }
}

__attribute__((noinline)) int run()
{
	geo::Box<int> b{2, 3};
	geo::Box<double> d{1.5, 2};
	int a = geo::twice(b.area());
	double c = geo::twice(d.area());
	return a + (int)c;
}

int main()
{
	printf("%d\n", run());
	return 0;
}
