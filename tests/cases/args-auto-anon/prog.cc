// --auto-args and a method in an anonymous namespace, which gcc describes
// without a linkage name: its spec is named by its (mangled) symbol, not by
// its bare name "add", which is also the name of a C function here (before,
// add(1000, 2000) showed as add(this=0x3e8, k=2000) and Acc::add had no
// values).
#include <cstdio>

namespace {
struct Acc {
	int v;
	__attribute__((noinline)) int add(int k) { v += k; return v; }
};
}

__attribute__((noinline)) int use_acc(int k)
{
	Acc a{1};
	return a.add(k);
}
extern "C" __attribute__((noinline)) long add(long a, long b) { return a + b; }

int main()
{
	printf("%d %ld\n", use_acc(2), add(1000, 2000));
	return 0;
}
