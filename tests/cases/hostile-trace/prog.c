/* a small nested trace to read back from hostile copies of its directory */
__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

int main(void)
{
	return work(3) == 6 ? 0 : 1;
}
