// --auto-args placing every argument as the x86-64 SysV ABI does: an empty
// class takes nothing, a packed struct with unaligned fields goes in
// memory, std::string by value is a hidden reference (a pointer)
#include <string>
struct Empty {};
enum class Pick { FOO = 1, BAR = 2 };
struct __attribute__((packed)) Packed {
	char c;
	int i;          // at offset 1
	short s;
};
__attribute__((noinline)) int with_empty(Empty e, Pick x, int i, const char *s)
{
	(void)e;
	return (int)x + i + s[0];
}
__attribute__((noinline)) int with_packed(Packed p, int after, const char *s)
{
	return p.i + after + s[0];
}
__attribute__((noinline)) int with_string(std::string str, int after, const char *s)
{
	return (int)str.size() + after + s[0];
}
int main()
{
	Packed p = { 'a', 7, 3 };
	std::string long_one(40, 'q');
	int r = with_empty(Empty(), Pick::FOO, 4, "debug info test") + with_packed(p, 11, "packed") +
		with_string(long_one, 12, "string");
	return r > 0 ? 0 : 1;
}
