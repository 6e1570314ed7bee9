/* 20000 levels deep, then back */
__attribute__((noinline)) long down(long n) { return n == 0 ? 0 : 1 + down(n - 1); }
int main(void) { return down(20000) == 20000 ? 0 : 1; }
