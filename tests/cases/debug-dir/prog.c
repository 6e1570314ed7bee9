/* debug information moved to a separate file, found by build-id */
__attribute__((noinline)) int helper(int x)
{
	__asm__ volatile("");
	return x + 1;
}

int main(void)
{
	return helper(1) == 2 ? 0 : 1;
}
