/* a small trace for the option checks to run the views on */
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x * 2; }
int main(void) { return leaf(1) == 2 ? 0 : 1; }
