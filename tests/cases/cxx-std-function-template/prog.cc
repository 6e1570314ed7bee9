// The short names drop a standard template argument that restates its
// default (std::vector<int, std::allocator<int> > is std::vector<int>), but
// a function template's own arguments are deduced, never defaults:
// std::min<int, std::less<int> > (the overload with a comparator) was shown
// as std::min<int>, the name of the overload without one.
#include <algorithm>
#include <functional>
#include <vector>
#define NI __attribute__((noinline))
namespace lib {
template <class T, class C> NI const T& pick(const T& a, const T& b, C c) { return c(b, a) ? b : a; }
template <class T> NI const T& pick(const T& a, const T& b) { return pick(a, b, std::less<T>()); }
}
int main()
{
	int a = 1, b = 2;
	std::vector<int> v;
	v.push_back(std::min(a, b, std::less<int>()));
	v.push_back(std::min(a, b));
	v.push_back(lib::pick(a, b));
	return v.size() == 3 && v[0] + v[1] + v[2] == 3 ? 0 : 1;
}
