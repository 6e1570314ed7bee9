/* A program linked with -lfntrace, run on its own (no fntrace record): it
 * records into ./fntrace.data.  With an argument it says "ready" once its
 * trace is under way and waits for a line on stdin before its calls:
 *   wait        itself;
 *   fork-wait   a forked child (the parent returns at once);
 *   exec-wait   the image it execs (itself again, with "wait"). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int step(int x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((no_instrument_function)) static void ready_then_wait(void)
{
	char line[16];
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int s = 0;

	if (!strcmp(mode, "exec-wait")) {
		execl("/proc/self/exe", argv[0], "wait", (char *)NULL);
		return 3;
	}
	if (!strcmp(mode, "fork-wait")) {
		pid_t pid = fork();
		if (pid < 0)
			return 4;
		if (pid > 0) {
			printf("ready\n");
			return 0;
		}
		ready_then_wait();
	} else if (!strcmp(mode, "wait")) {
		ready_then_wait();
	}
	for (int i = 0; i < 3; i++)
		s = step(s);
	return s != 3;
}
