__attribute__((noinline)) int plugin_leaf(int x) { return x * 2; }
int plugin_entry(int x) { return plugin_leaf(x) + plugin_leaf(x + 1); }
