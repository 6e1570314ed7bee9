// C++ functions whose --demangle full names carry their signature: a
// const member of a template, a destructor, overloads in a namespace
// (one with recorded values), and a caller of them (an opening line)
volatile int sink;

namespace geo {
template <class T> struct Box {
	T w, h;
	__attribute__((noinline)) T area() const { return w * h; }
};
__attribute__((noinline)) int over(int x) { return x + 1; }
__attribute__((noinline)) int over(double x) { return (int)x + 2; }
}

struct D {
	int v;
	__attribute__((noinline)) ~D() { sink = v; }
};

namespace n {
__attribute__((noinline)) int f(int x)
{
	geo::Box<int> b = { x, 2 };
	return b.area();
}
}

int main()
{
	{
		D d = { 3 };
		sink = n::f(1) + geo::over(1) + geo::over(2.5);
	}
	return 0;
}
