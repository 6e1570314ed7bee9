/* graph and folded: a small deterministic call tree with a shared leaf,
 * two paths into the same function, and recursion */
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + leaf(x + 1); }
__attribute__((noinline)) int fact(int n) { return n <= 1 ? leaf(0) : n * fact(n - 1); }
__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += mid(i);
	return s + fact(3);
}
int main(void) { return work(3) + mid(5) == 34 ? 0 : 1; }
