__attribute__((noinline)) int second_work(int x) { __asm__ volatile(""); return x - 1; }
int main(void) { return second_work(1); }
