// record-time -F/-N with C++ names: globs match the demangled name (with
// and without its parameter list), whether or not libstdc++ is linked
#define NOINLINE __attribute__((noinline))
namespace geo {
NOINLINE int area(int x) { __asm__ volatile(""); return x * x; }
struct Shape {
	NOINLINE int perim(int x) { __asm__ volatile(""); return 4 * x; }
};
}
NOINLINE int other(int x) { return geo::area(x) + 1; }
int main() {
	geo::Shape s;
	return other(2) + s.perim(1) == 9 ? 0 : 1;
}
