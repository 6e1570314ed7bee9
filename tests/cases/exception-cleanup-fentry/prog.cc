// destructors run by the unwinder belong to the frame that owns the object:
// when inner() throws, inner is left before D::~D runs in middle's cleanup
#include <cstdio>
struct D {
	int v;
	__attribute__((noinline)) ~D();
};
__attribute__((noinline)) D::~D() { std::printf("~D %d\n", v); }
__attribute__((noinline)) void inner(int x) { if (x > 0) throw x; }
__attribute__((noinline)) void middle(int x) { D d{x}; inner(x); }
__attribute__((noinline)) int catcher(int x)
{
	try { middle(x); } catch (int v) { return v; }
	return 0;
}
__attribute__((noinline)) int after(int x) { return x + 1; }
int main() { return after(catcher(7)) == 8 ? 0 : 1; }
