/* two functions with 3-byte pads, in a library loaded twice (dl.c) */
__attribute__((noinline)) int lf(int x) { return x + 1; }
int lg(int x) { return lf(x) * 2; }
