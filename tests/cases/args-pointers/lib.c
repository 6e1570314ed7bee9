int lib_data[4] = { 5, 6, 7, 8 };
int lib_fn(int x) { return x + 100; }
