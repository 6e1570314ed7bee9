// an exception thrown three frames down and caught
#include <stdexcept>
__attribute__((noinline)) void thrower(int x) { if (x > 0) throw std::runtime_error("boom"); }
__attribute__((noinline)) void middle(int x) { thrower(x); thrower(x - 100); }
__attribute__((noinline)) int catcher(int x) {
	try { middle(x); } catch (const std::exception &) { return 1; }
	return 0;
}
__attribute__((noinline)) int after(int x) { return x + 1; }
int main() { return after(catcher(1)) == 2 ? 0 : 1; }
