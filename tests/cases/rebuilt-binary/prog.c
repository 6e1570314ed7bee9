/* decoding after the binary moved or was rebuilt */
__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }
int main(void) { return work(1) == 2 ? 0 : 1; }
