// A class whose deleting and complete destructors both run: two functions
// that every demangled form names B::~B, from one file.  report tells the
// rows apart by the destructor's kind (before: two rows "B::~B [prog.cc]").
struct B {
	virtual ~B() {}
};

int main()
{
	B *b = new B;
	delete b;
	B s;
	return 0;
}
