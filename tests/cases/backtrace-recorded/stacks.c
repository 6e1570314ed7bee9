/* Stacks a call takes itself (fnt_capture_stack) under record-time -C and
 * -t: a call that leads to no -C match, or is shorter than -t, goes with
 * the stacks it took, as replay with the same filters drops them.
 * s2 sleeps 3 ms in b() between its two stacks; q() is short and leads to
 * no b().  a() after the recursion keeps it a recursion at -O2 (a tail
 * call became a loop: one s2() with every stack). */
#define FNT_WEAK
#include <unistd.h>
#include "fntrace.h"
__attribute__((noinline)) void a(int x) { __asm__ volatile("" :: "r"(x)); }
__attribute__((noinline)) void b(int x) { usleep(3000 + x); }
__attribute__((noinline)) void s2(int x) { a(x); fnt_capture_stack(); b(x); a(x); fnt_capture_stack(); if (x) s2(x - 1); a(x); }
__attribute__((noinline)) void q(int x) { a(x); fnt_capture_stack(); }
int main(void) { s2(2); q(1); s2(0); return 0; }
