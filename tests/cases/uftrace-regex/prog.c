/* uftrace's filters are regular expressions, fntrace's globs: a pattern
 * that reads as a regex gets a warning with the glob it likely means, and a
 * record whose filters left out every call says so rather than asking
 * whether the program was built with -finstrument-functions */
__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) int mid(int x)
{
	return leaf(x) * 2;
}

int main(void)
{
	return mid(1) == 4 ? 0 : 1;
}
