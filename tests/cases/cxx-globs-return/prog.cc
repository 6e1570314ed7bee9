// Globs and template functions: a template function's mangled name holds
// its return type, which the full signature prints first.  'std::*' must
// not name build<int> (which returns a std::vector), nor 'geo::*' make<int>
// (which returns a geo::Box); a name copied with its [abi:cxx11] tag names
// the function in -A/-R as it does in -F.
#include <cstdio>
#include <string>
#include <vector>

namespace geo {
template <class T> struct Box { T w; };
__attribute__((noinline)) int area(int w) { return w * w; }
}

template <class T> __attribute__((noinline)) geo::Box<T> make(T v) { return geo::Box<T>{v}; }
template <class T> __attribute__((noinline)) std::vector<T> build(T v)
{
	std::vector<T> r;
	r.push_back(v);
	return r;
}
__attribute__((noinline)) std::string mkstr(int n) { return std::string(n, 'z'); }

int main()
{
	auto b = make(3);
	auto v = build(4);
	std::string s = mkstr(3);
	printf("%d %d %s %d\n", b.w, v[0], s.c_str(), geo::area(5));
	return 0;
}
