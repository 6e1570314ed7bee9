/* fib(10): 177 calls of fib; inclusive time must not be counted twice */
__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) int run(void) { return fib(10); }
int main(void) { return run() == 55 ? 0 : 1; }
