/* nesting and leaf calls */
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x * 2; }
__attribute__((noinline)) int middle(int x) { return leaf(x) + leaf(x + 1); }
__attribute__((noinline)) int top(int n) { int s = 0; for (int i = 0; i < n; i++) s += middle(i); return s; }
int main(void) { return top(2) == 8 ? 0 : 1; }
