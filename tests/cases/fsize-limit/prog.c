/* A program that limits the size of the files it writes (ulimit -f).  The
 * trace grows past the limit: the runtime must not get the program killed
 * by SIGXFSZ; it stops recording and counts what it drops. */
#include <stdio.h>
#include <sys/resource.h>
#include <fntrace.h>

__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }

int main(void)
{
	struct rlimit rl = { 256 << 10, 256 << 10 };
	int s = 0;
	if (setrlimit(RLIMIT_FSIZE, &rl))
		return 3;
	for (int i = 0; i < 200000; i++)      /* about 1 MB of events */
		s += work(i);
	/* a limit lowered below the trace's size: a snapshot (a copy of the
	 * trace) is refused, not a SIGXFSZ */
	rl.rlim_cur = 64 << 10;
	if (setrlimit(RLIMIT_FSIZE, &rl))
		return 4;
	printf("done %d, snapshot %d\n", s != 0, fnt_snapshot("capped"));
	return 0;
}
