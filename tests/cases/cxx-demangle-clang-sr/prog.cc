// Overloads picked by enable_if on a trait of the program's own namespace.
// clang writes the trait in the return type as "sr3lib4wideIT_EE5valueE"
// (_ZN3lib5twiceIlEENSt9enable_ifIXsr3lib4wideIT_EE5valueES2_E4typeES2_),
// which libiberty's tree parser refuses and only its text demangler
// (c++filt) reads: every view showed the mangled name.  gcc writes
// "srNS_4wideIT_EE5valueE", which both read.
#include <type_traits>
#define NI __attribute__((noinline))
namespace lib {
template <class T> struct wide { static const bool value = sizeof(T) > 4; };
template <class T> NI typename std::enable_if<lib::wide<T>::value, T>::type twice(T x) { return x * 2; }
template <class T> NI typename std::enable_if<!lib::wide<T>::value, T>::type twice(T x) { return x * 3; }
}
int main()
{
	long r = lib::twice(1L) + lib::twice(1) + lib::twice(2);      /* 2 + 3 + 6 */
	return r == 11 ? 0 : 1;
}
