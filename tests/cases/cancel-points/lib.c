__attribute__((noinline)) int libfn(int x) { return x + 1; }
