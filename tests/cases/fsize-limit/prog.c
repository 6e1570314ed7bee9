/* A program under a limit on the size of the files it writes (ulimit -f).
 * The trace grows past the limit: neither the program nor record may be
 * killed by SIGXFSZ; the runtime stops recording and counts what it drops.
 *   (no argument) the program sets a 256 KiB limit itself, then lowers it
 *     below the trace's size and asks for a snapshot;
 *   shell: the limit was set before `fntrace record` (by the shell);
 *   raise: the shell set a soft limit, the program raises it to the hard
 *     one (unlimited), and every event fits;
 *   late FILE: in the background, after record has gone (FILE exists), the
 *     program lowers its limit below the slot it still holds in record's
 *     ring, which it then writes into its file itself at exit.
 * The modes after the first print what the program sees of the limit and
 * of SIGXFSZ, which must be what it sees without fntrace. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <fntrace.h>

__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }

__attribute__((no_instrument_function)) static void show(const struct rlimit *rl)
{
	struct sigaction sa;
	char soft[32], hard[32];
	sigaction(SIGXFSZ, NULL, &sa);
	snprintf(soft, sizeof(soft), rl->rlim_cur == RLIM_INFINITY ? "unlimited" : "%lu", (unsigned long)rl->rlim_cur);
	snprintf(hard, sizeof(hard), rl->rlim_max == RLIM_INFINITY ? "unlimited" : "%lu", (unsigned long)rl->rlim_max);
	printf("limit %s/%s, SIGXFSZ %s\n", soft, hard, sa.sa_handler == SIG_IGN ? "ignored" :
	       sa.sa_handler == SIG_DFL ? "default" : "handled");
}

__attribute__((no_instrument_function)) static void wait_for(const char *path)
{
	struct stat st;
	struct timespec ts = { 0, 10000000 };
	while (stat(path, &st))
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	struct rlimit rl = { 256 << 10, 256 << 10 };
	int s = 0;
	if (argc > 1) {
		getrlimit(RLIMIT_FSIZE, &rl);
		show(&rl);
		fflush(stdout);
		if (!strcmp(argv[1], "raise")) {
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_FSIZE, &rl))
				return 3;
		}
		if (!strcmp(argv[1], "late") && argc > 2) {
			for (int i = 0; i < 1000; i++)    /* (less than a chunk: one slot of the ring) */
				s += work(i);
			FILE *r = argc > 3 ? fopen(argv[3], "w") : NULL;
			if (r)                            /* the ring is taken: the shell may exit */
				fclose(r);
			wait_for(argv[2]);
			rl.rlim_cur = 4096;
			if (setrlimit(RLIMIT_FSIZE, &rl))
				return 4;
			for (int i = 0; i < 1000; i++)
				s += work(i);
			return s == 0;
		}
		for (int i = 0; i < 200000; i++)      /* about 1 MB of events */
			s += work(i);
		printf("done %d\n", s != 0);
		return 0;
	}
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
