// Classes passed by value that the Itanium C++ ABI passes by hidden
// reference (their address in a register) and returns in memory, though
// they declare no destructor: a user copy constructor, a virtual function,
// a std::string member, std::function and std::shared_ptr (a non-trivial
// base or member).  gcc does not write DW_AT_calling_convention, and
// --auto-args took them for plain structs: 'x' was read from the wrong
// register (person(p={...}, x=413669456)), or not at all (shared()).
#include <functional>
#include <memory>
#include <string>
#define NI __attribute__((noinline))
struct Person { std::string name; int age; };
struct Copy { int v; Copy(int x) : v(x) {} Copy(const Copy& o) : v(o.v + 1) {} };
struct Virt { int v; Virt(int x) : v(x) {} virtual int get() const { return v; } };
struct Plain { long a, b; };
NI int person(Person p, int x) { return p.age + x; }
NI int copy(Copy c, int x) { return c.v + x; }
NI int virt(Virt v, int x) { return v.get() + x; }
NI int func(std::function<int(int)> f, int x) { return f(x); }
NI int shared(std::shared_ptr<int> p, int x) { return *p + x; }
NI int plain(Plain p, int x) { return (int)p.a + x; }
NI Copy mkcopy(int x, int y) { return Copy(x * 10 + y); }
int main()
{
	int r = person(Person{"bob", 40}, 1) + copy(Copy(5), 2) + virt(Virt(7), 3) +
		func([](int v) { return v; }, 4) + shared(std::make_shared<int>(9), 5) + plain({1, 2}, 6) +
		mkcopy(3, 4).v;
	return r == 41 + 7 + 10 + 4 + 14 + 7 + 34 ? 0 : 1;
}
