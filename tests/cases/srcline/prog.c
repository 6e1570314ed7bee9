/* --srcline: each function's file:line; with record --callsite, the caller's line */
__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) int caller(int x)
{
	int a = leaf(x);
	return a + leaf(a);
}

int main(void)
{
	return caller(1) == 5 ? 0 : 1;
}
