/* Record-time filters with recording started by a trigger deep in the
 * program (record --trace=off -T f@trace_on): main -> a -> b -> f, which
 * turns recording on; the calls after f, in b, a and main, are recorded
 * too.  One function a line. */
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int g(int x) { return leaf(x) + leaf(x); }
__attribute__((noinline)) int f(int x) { return g(x) + leaf(x); }
__attribute__((noinline)) int b(int x) { return f(x) + g(x); }
__attribute__((noinline)) int a(int x) { return b(x) + leaf(x); }
int main(void) { int s = a(1); s += g(2); s += f(3); return s == 30 ? 0 : 1; }
