/* exit() from a nested call: the open frames are shown as never returning */
#include <stdlib.h>
__attribute__((noinline)) void quit(int code) { exit(code); }
__attribute__((noinline)) void inner(int x) { if (x) quit(3); }
int main(int argc, char **argv) { (void)argv; inner(argc); return 0; }
