__attribute__((noinline)) int second_work(int x) { __asm__ volatile(""); return x + 1; }
int main(int argc, char **argv) { (void)argv; return second_work(argc); }
