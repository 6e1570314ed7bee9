// a caught exception rethrown from a catch(...) block, then one that nothing
// catches: std::terminate, abort, exit 134, the frames open at the abort
// closed as 'trace ended'.  gcc runs the exit hooks of the unwound frames
// (cleanups), clang does not: expected/replay.clang shows them as unwound.
#include <stdexcept>
#define NI __attribute__((noinline))
NI void thrower(int x) { if (x > 0) throw std::runtime_error("boom"); }
NI void pass(int x) { thrower(x); }
NI void rethrower(int x) { try { pass(x); } catch (...) { throw; } }
NI int catcher(int x) { try { rethrower(x); } catch (const std::exception &) { return 1; } return 0; }
NI void uncaught(int x) { pass(x); }
int main(int argc, char **) { int r = catcher(1); r += catcher(0); uncaught(argc); return r; }
