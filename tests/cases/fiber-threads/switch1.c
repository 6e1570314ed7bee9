/* switch.c with one fiber: each worker resumes it right after the other
 * left it, before that one has made any traced call since (with -pg, the
 * frames it returns through are still on the other thread's shadow stack) */
#define FIBERS 1
#include "switch.c"
