// std::string and std::string_view arguments and return values as strings:
// by value (a hidden reference for std::string, two registers for a view),
// by reference, by pointer; cut at 64 bytes, NUL bytes kept, bad pointers
#include <string>
#include <string_view>

__attribute__((noinline)) size_t by_value(std::string s, int n) { __asm__ volatile(""); return s.size() + (size_t)n; }
__attribute__((noinline)) size_t by_ref(const std::string &s) { __asm__ volatile(""); return s.size(); }
__attribute__((noinline)) int by_ptr(const std::string *s) { __asm__ volatile(""); return s != nullptr; }
__attribute__((noinline)) size_t view(std::string_view v, int n) { __asm__ volatile(""); return v.size() + (size_t)n; }
__attribute__((noinline)) std::string make(int n) { __asm__ volatile(""); return std::string((size_t)n, 'x'); }
__attribute__((noinline)) std::string_view tail(std::string_view v) { __asm__ volatile(""); return v.substr(1); }

int main()
{
	std::string shortstr = "hello", longstr(100, 'a'), odd("a\"b\n", 4);
	odd.push_back('\0');
	odd += "z";
	size_t sum = by_value(shortstr, 1);     /* one call a statement: a fixed order */
	sum += by_value(longstr, 2);
	sum += by_ref(odd);
	sum += by_ref(std::string());
	sum += (size_t)by_ptr(&shortstr);
	sum += (size_t)by_ptr(nullptr);
	sum += (size_t)by_ptr((const std::string *)16);
	sum += view("world", 3);
	sum += view(std::string_view(), 4);
	sum += view(std::string_view((const char *)8, 5), 5);
	sum += make(3).size();
	sum += make(40).size();
	sum += tail("abc").size();
	return sum == 5 + 1 + 100 + 2 + 6 + 0 + 1 + 0 + 1 + 5 + 3 + 0 + 4 + 5 + 5 + 3 + 40 + 2 ? 0 : 1;
}
