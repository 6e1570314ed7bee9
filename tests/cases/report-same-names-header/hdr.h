// A static function defined in a header: every file that includes it gets
// a copy of its own, with one name and one source file.
#define NI __attribute__((noinline))
NI static int twice(int x) { return 2 * x; }
