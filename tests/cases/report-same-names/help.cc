#define NI __attribute__((noinline))
NI static int helper(int x) { return x * 5; }
NI int help_call(int x) { return helper(x); }
