/* record-time filters against read-time ones (a differential fuzzer's
 * findings, minimized): one function a line. */
__attribute__((noinline)) void f1(void) { __asm__ volatile(""); }
__attribute__((noinline)) void f2(void) { __asm__ volatile(""); }
__attribute__((noinline)) void f7(void) { __asm__ volatile(""); }
__attribute__((noinline)) void g1(void) { f7(); }
__attribute__((noinline)) void h2(void) { f2(); }
__attribute__((noinline)) void leafy(void) { f7(); }
__attribute__((noinline)) void r(int n) { if (n) r(n - 1); else leafy(); __asm__ volatile(""); }
int main(void) { f1(); f2(); g1(); f7(); h2(); r(12); return 0; }
