// gcc adds an ABI tag to the name of every function that returns a
// std::string (mk is mk[abi:cxx11]) and to a class declared with
// [[gnu::abi_tag]].  The tag was in every form of the name, --demangle
// simple included, so the name a programmer writes (-F mk, -A mk@...,
// -F 'Two::m') matched nothing: "-F 'mk' matches no function that was
// called".
#include <string>
#define NI __attribute__((noinline))
NI std::string mk(int n) { return std::string(n, 'z'); }
struct [[gnu::abi_tag("t1")]] Two { NI int m() const { return 2; } };
NI int other(int x) { return x + 1; }
int main()
{
	Two t;
	int r = (int)mk(3).size() + t.m() + other(1);
	return r == 7 ? 0 : 1;
}
