__attribute__((noinline)) int f(int x) { __asm__ volatile(""); return x; }
int main(void) { long s = 0; for (int i = 0; i < 20000; i++) s += f(i); return s == 199990000 ? 0 : 1; }
