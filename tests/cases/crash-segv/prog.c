/* the program dies inside nested calls: every event before is kept */
#include <signal.h>
#include <stdlib.h>
__attribute__((noinline)) int fine(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void die_here(int x) { if (x > 0) { volatile int *p = 0; *p = x; } }
__attribute__((noinline)) void nested(int x) { fine(x); die_here(x); fine(x); }
int main(int argc, char **argv) { (void)argv; for (int i = 0; i < 3; i++) fine(i); nested(argc); return 0; }
