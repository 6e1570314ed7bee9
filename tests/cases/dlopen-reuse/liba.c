/* identical layout to libb.c: the same offsets hold differently named functions */
__attribute__((noinline)) int alpha_helper(int x) { __asm__ volatile(""); return x * 2; }
int plugin_entry(int x) { return alpha_helper(x) + 1; }
