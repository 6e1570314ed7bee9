// Function parameter packs.  gcc describes the pack's parameters inside a
// DW_TAG_GNU_formal_parameter_pack, which --auto-args skipped: the
// parameter after a pack took the pack's registers (before<int, long>
// showed last=4, its first argument, where last is 6), and a pack at the
// end was left out.  clang lists them as ordinary parameters.
#define NI __attribute__((noinline))
template <class... A> NI long sum(int first, A... rest) { return first + (0 + ... + rest); }
template <class... A> NI long before(A... a, int last) { return (0 + ... + a) * last; }
int main()
{
	long r = sum(1, 2L, 3) + before<int, long>(4, 5L, 6) + before<>(7) + sum(8);
	return r == 6 + 54 + 0 + 8 ? 0 : 1;
}
