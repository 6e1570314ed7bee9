/* --auto-args with gcc's clones and split functions: isra_fn and cp_fn get
 * .isra/.constprop clones whose DWARF is isra_fn's and cp_fn's, and
 * hot_cold is split in a hot and a cold part described by DW_AT_ranges */
#include <stdio.h>
#include <stdlib.h>
struct big { long a[8]; };
static __attribute__((noinline)) long isra_fn(struct big *p, int unused)
{
	(void)unused;
	return p->a[3] * 2;
}
static __attribute__((noinline)) long cp_fn(long x, long k)
{
	return x * k + 1;
}
__attribute__((noinline, cold)) static void complain(long x)
{
	fprintf(stderr, "negative %ld\n", x);
}
__attribute__((noinline)) long hot_cold(long x, long y)
{
	if (__builtin_expect(x < 0, 0)) {
		complain(x);
		complain(y);
		return -1;
	}
	return x + y;
}
int main(int argc, char **argv)
{
	(void)argv;
	struct big b = { { 0, 1, 2, 21, 4, 5, 6, 7 } };
	long s = isra_fn(&b, argc) + cp_fn(argc, 7) + cp_fn(argc + 1, 7) + hot_cold(5, 6);
	return s == 42 + 8 + 15 + 11 ? 0 : 1;
}
