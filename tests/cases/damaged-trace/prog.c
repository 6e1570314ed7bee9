/* a single-threaded trace over many 16K chunks, recorded with --callsite
 * (CALLSITE records too), for check.py to cut and corrupt */
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x * 2; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + leaf(x + 1); }
__attribute__((noinline)) int outer(int n) { int s = 0; for (int i = 0; i < n; i++) s += mid(i); return s; }
int main(void) { int s = 0; for (int i = 0; i < 100; i++) s += outer(100); return s == 100 * 20000 ? 0 : 1; }
