// A C++20 generator.  gcc splits counter(int) into the ramp (the symbol
// _Z7counteri, which returns the Gen in memory) and an actor and a destroy
// function that it describes in DWARF as "counter" with one parameter,
// frame_ptr, but no linkage name.  --auto-args named their spec "counter",
// which is also the ramp's name: the ramp showed counter(frame_ptr=<the
// address of its result>, n=3).
#include <coroutine>
#define NI __attribute__((noinline))
struct Gen {
	struct promise_type {
		int cur = 0;
		Gen get_return_object() { return Gen{std::coroutine_handle<promise_type>::from_promise(*this)}; }
		std::suspend_always initial_suspend() noexcept { return {}; }
		std::suspend_always final_suspend() noexcept { return {}; }
		std::suspend_always yield_value(int v) { cur = v; return {}; }
		void return_void() {}
		void unhandled_exception() {}
	};
	std::coroutine_handle<promise_type> h;
	~Gen() { if (h) h.destroy(); }
	NI bool next() { h.resume(); return !h.done(); }
};
NI int work(int i) { return i * i; }
NI Gen counter(int n) { for (int i = 0; i < n; i++) co_yield work(i); }
int main()
{
	Gen g = counter(3);
	int s = 0;
	while (g.next())
		s += g.h.promise().cur;
	return s == 5 ? 0 : 1;
}
