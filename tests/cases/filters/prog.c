/* replay/report filters: -F, -N, -D, --tid, globs */
__attribute__((noinline)) int geo_area(int x) { __asm__ volatile(""); return x * x; }
__attribute__((noinline)) int geo_perimeter(int x) { __asm__ volatile(""); return 4 * x; }
__attribute__((noinline)) int shape(int x) { return geo_area(x) + geo_perimeter(x); }
__attribute__((noinline)) int noisy(int x) { return geo_area(x); }
__attribute__((noinline)) int scene(int n) { int s = 0; for (int i = 0; i < n; i++) s += shape(i) + noisy(i); return s; }
int main(void) { return scene(2) == 6 ? 0 : 1; }
