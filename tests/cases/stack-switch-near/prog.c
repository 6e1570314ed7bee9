/* stack-switch's coroutines on 16 KiB stacks, next to each other: closer
 * than the 32 KiB by which the runtime tells machine stacks apart, so it
 * takes them for one (doc/safety.md, "Hand-written stack switches").  Their
 * frames share one shadow stack, and a return on one stack drops the other
 * one's frames as left: under -pg and patchable entries their returns come
 * later through return addresses no shadow stack holds any more. */
#define STACK_KB 16
#include "../stack-switch/prog.c"
