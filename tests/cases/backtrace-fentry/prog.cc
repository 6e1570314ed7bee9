// what the program sees of its own stack must not change under tracing:
// backtrace() and _Unwind_Backtrace name the program's real callers
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <execinfo.h>
#include <unwind.h>

__attribute__((noinline)) static void show(const char *how, void **pc, int n)
{
	std::printf("%s:", how);
	for (int i = 0; i < n; i++) {
		Dl_info di;
		const char *name = dladdr(pc[i], &di) && di.dli_sname ? di.dli_sname : "?";
		std::printf(" %s", name);
		if (!std::strcmp(name, "main"))
			break;
	}
	std::printf("\n");
}

struct walk { void **pc; int n; };
__attribute__((noinline)) static _Unwind_Reason_Code step(struct _Unwind_Context *c, void *arg)
{
	walk *w = (walk *)arg;
	w->pc[w->n++] = (void *)_Unwind_GetIP(c);
	return w->n == 4 ? _URC_END_OF_STACK : _URC_NO_REASON;   /* leaf to main */
}

volatile int sink;
extern "C" __attribute__((noinline)) void leaf(int x)
{
	void *pc[64];
	show("backtrace", pc, backtrace(pc, 64));
	walk w = { pc, 0 };
	_Unwind_Backtrace(step, &w);
	show("unwind", pc, w.n);
	// libgcc's own walker, reached past libfntrace's wrappers (as gdb or a
	// profiler walks): it may stop at the return trampoline, never crash
	typedef _Unwind_Reason_Code (*walker)(_Unwind_Trace_Fn, void *);
	walker raw = (walker)dlsym(dlopen("libgcc_s.so.1", RTLD_NOW), "_Unwind_Backtrace");
	w.n = 0;
	raw(step, &w);
	show("raw walk starts at", pc, 1);
	sink = x;
}
extern "C" __attribute__((noinline)) void mid(int x) { leaf(x + 1); sink = x; }
extern "C" __attribute__((noinline)) void top(int x) { mid(x + 1); sink = x; }
int main() { top(1); return sink == 1 ? 0 : 1; }
