/* report: sorting and the csv/json formats */
__attribute__((noinline)) int often(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int sometimes(int x) { return often(x) + often(x); }
__attribute__((noinline)) void slow(void) { for (volatile int i = 0; i < 20000000; i++); }   /* ~40 ms: more than a preemption of another function on a loaded machine */
int main(void) { int s = 0; for (int i = 0; i < 5; i++) s += sometimes(i); slow(); return s == 30 ? 0 : 1; }
