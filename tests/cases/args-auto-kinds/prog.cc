// --auto-args and parameter types that ended a function's spec before:
// char8_t, char16_t and char32_t (DW_ATE_UTF), std::nullptr_t (an
// unspecified type, whose register holds nothing meaningful: {...}), a
// pointer to member function (two registers: {...}) and a pointer to data
// member (its offset); every parameter after them is shown too.
#include <cstddef>
#include <cstdio>

struct W {
	int v;
	int scaled(int k) const { return v * k; }
	int other;
};
static int gvar = 5;

__attribute__((noinline)) int wide(char16_t a, char32_t b, char8_t c, int d) { return a + b + c + d; }
__attribute__((noinline)) int ptrs(int *ip, std::nullptr_t np, int k) { return *ip + (np == nullptr) + k; }
__attribute__((noinline)) int callmf(const W &w, int (W::*mf)(int) const, int k, int m) { return (w.*mf)(k) + m; }
__attribute__((noinline)) int dm(const W &w, int W::*p, int k) { return w.*p + k; }

int main()
{
	W w{3, 9};
	printf("%d %d %d %d\n", wide(u'A', U'B', u8'C', 4), ptrs(&gvar, nullptr, 7), callmf(w, &W::scaled, 6, 1),
	       dm(w, &W::other, 2));
	return 0;
}
