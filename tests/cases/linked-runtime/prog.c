/* a program linked with -lfntrace, run without `fntrace record` */
__attribute__((noinline)) int step(int x) { __asm__ volatile(""); return x + 1; }
int main(void) { int s = 0; for (int i = 0; i < 3; i++) s = step(s); return s == 3 ? 0 : 1; }
