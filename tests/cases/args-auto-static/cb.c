/* the other static helper (args-auto-static) */
static __attribute__((noinline)) const char* helper(const char* s, double d) { return d > 0 ? s + 1 : s; }
const char* b_api(const char* s) { return helper(s, 1.5); }
