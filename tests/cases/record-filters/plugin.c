#define NOINLINE __attribute__((noinline))
NOINLINE int plug_leaf(int x) { __asm__ volatile(""); return x; }
NOINLINE int plug_work(int n) { int s = 0; for (int i = 1; i <= n; i++) s += plug_leaf(i); return s; }
