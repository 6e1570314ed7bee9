// C++ names from the saved symbol table: every --demangle mode, overloads
#include <string>
namespace geo {
template <class T> struct Box {
	T w, h;
	__attribute__((noinline)) T area() const { return w * h; }
};
}
__attribute__((noinline)) int f(int x) { return x + 1; }
__attribute__((noinline)) int f(double x) { return (int)x; }
__attribute__((noinline)) std::string tag(const std::string &s) { return s + "x"; }

int main()
{
	geo::Box<int> b{2, 3};
	return b.area() + f(1) + f(2.0) + (int)tag("a").size() == 12 ? 0 : 1;
}
