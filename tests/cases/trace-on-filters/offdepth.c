/* -D and depth=N with a trace_off call left out (record --trace=off):
 *   offdepth      main -> on -> c, then off(0) -> on -> c
 *   offdepth 1    main -> f -> off(1) -> x -> on -> c
 * off() is the trace_off trigger's own call, not shown, and what it calls
 * is entered while recording is off until on() turns it on again.  One
 * function a line; each body its own, and work after each last call. */
static volatile int sink;
__attribute__((noinline)) void c(void) { sink += 1; }
__attribute__((noinline)) void on(void) { c(); sink += 2; }
__attribute__((noinline)) void x(void) { on(); sink += 3; }
__attribute__((noinline)) void off(int k) { if (k) x(); else on(); sink += 4; }
__attribute__((noinline)) void f(void) { off(1); sink += 5; }
int main(int argc, char **argv)
{
	if (argc > 1) {
		f();
	} else {
		on();
		off(0);
	}
	return sink > 0 ? 0 : 1;
}
