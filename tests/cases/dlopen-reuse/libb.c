/* identical layout to liba.c: the same offsets hold differently named functions */
__attribute__((noinline)) int bravo_helper(int x) { __asm__ volatile(""); return x * 2; }
int plugin_entry(int x) { return bravo_helper(x) + 1; }
