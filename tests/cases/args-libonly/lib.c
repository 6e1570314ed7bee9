/* the only part of the program built with -pg -mfentry */
__attribute__((noinline)) long lib_add(long a, long b) { return a + b; }
__attribute__((noinline)) const char *lib_name(const char *s) { return s + 1; }
long lib_entry(long x) { return lib_add(x, 2 * x) + (lib_name("xyz")[0] == 'y'); }
