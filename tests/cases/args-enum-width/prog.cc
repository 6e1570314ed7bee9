// --auto-args with enums narrower and wider than int, unsigned and signed:
// each value must print as its enumerator, whatever the sign of its bits
#include <cstdint>
enum class mo : unsigned short { relaxed = 0, acquire = 2, mask = 0xffff };
enum class s8 : signed char { neg = -1, zero = 0, big = 127 };
enum class u8 : unsigned char { low = 1, high = 0xff };
enum class u64 : std::uint64_t { top = 0xffffffffffffffffull, one = 1 };
__attribute__((noinline)) int take_mo(mo m) { return (int)m; }
__attribute__((noinline)) int take_s8(s8 v) { return (int)v; }
__attribute__((noinline)) int take_u8(u8 v) { return (int)v; }
__attribute__((noinline)) int take_u64(u64 v) { return (int)(unsigned)v; }
int main()
{
	int s = take_mo(mo::mask) + take_mo(mo::acquire) + take_s8(s8::neg) + take_s8(s8::big) +
		take_u8(u8::high) + take_u64(u64::top);
	return s == 0xffff + 2 - 1 + 127 + 0xff + (int)0xffffffffu ? 0 : 1;
}
