/* Calls entered while recording is off that return after a trace_on
 * (record --trace=off -T on@trace_on -T off@trace_off): off() is the
 * trace_off trigger's own call, entered as recording goes off, and the
 * on() inside it turns recording on again before off() returns.
 *   prog      main -> x3 -> off(1) -> on, then y and c
 *   prog 1    main -> x1 -> off(1) -> on, off(0), then c
 * One function a line; each body its own (no folding at -O2), and work
 * after each last call (no tail calls). */
static volatile int sink;
__attribute__((noinline)) void on(void) { sink += 1; }
__attribute__((noinline)) void off(int k) { if (k) on(); sink += 2; }
__attribute__((noinline)) void c(void) { sink += 3; }
__attribute__((noinline)) void y(void) { sink += 4; }
__attribute__((noinline)) void x1(void) { off(1); off(0); sink += 5; }
__attribute__((noinline)) void x3(void) { off(1); y(); sink += 6; }
int main(int argc, char **argv)
{
	on();
	if (argc > 1)
		x1();
	else
		x3();
	c();
	return sink > 0 ? 0 : 1;
}
