/* one of the two static helpers (args-auto-static) */
static __attribute__((noinline)) int helper(int x) { return x + 1; }
int a_api(int x) { return helper(x); }
