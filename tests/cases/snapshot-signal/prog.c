/* flight recorder + snapshot signal: two snapshots taken by SIGUSR2 at
 * known points, then the program is killed (the ring in the trace file
 * survives as is) */
#include <signal.h>
#include <unistd.h>

static volatile long sink;
__attribute__((noinline)) void a(long i) { sink += i; }
__attribute__((noinline)) void b(long i) { sink -= i; }
__attribute__((noinline)) void c(void) { sink++; }
__attribute__((noinline)) void phase_a(void) { for (long i = 0; i < 50000; i++) a(i); }
__attribute__((noinline)) void phase_b(void) { for (long i = 0; i < 50000; i++) b(i); }

int main(void)
{
	phase_a();
	raise(SIGUSR2);
	phase_b();
	raise(SIGUSR2);
	c();
	kill(getpid(), SIGKILL);
	return 0;
}
