/* the profile of frames that never returned (the program crashed inside
 * them): inclusive time still includes everything they called, so a caller's
 * total is never below its callee's */
#include <time.h>
__attribute__((noinline)) void busy(void) { struct timespec ts = {0, 2 * 1000 * 1000}; nanosleep(&ts, 0); }
__attribute__((noinline)) void die(int x) { busy(); if (x) { volatile int *p = 0; *p = x; } }
__attribute__((noinline)) void nested(int x) { busy(); die(x); }
int main(int argc, char **argv) { (void)argv; busy(); nested(argc); return 0; }
