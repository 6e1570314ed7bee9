/* shuts down gracefully on a SIGTERM or SIGHUP, and at once (forced exit)
 * on a second one; "self": sends SIGTERM to its own process group;
 * "newgroup": leaves record's process group first; "parent": see below;
 * makes the file "ready"
 * when it is */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static volatile sig_atomic_t n;
static void h(int s) { (void)s; if (++n == 2) { write(1, "forced exit\n", 12); _exit(9); } }
__attribute__((noinline)) void tick(void) { __asm__ volatile(""); }
/* "parent": SIGTERM to record as soon as the program runs (glibc passes
 * argv to constructors); record must live on, and not pass it back */
__attribute__((constructor)) static void parent(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "parent")) {
		kill(getppid(), SIGTERM);
		usleep(100000);
		printf("record signalled\n");
		exit(0);
	}
}
int main(int argc, char **argv)
{
	struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_handler = h; sigaction(SIGTERM, &sa, 0); sigaction(SIGHUP, &sa, 0);
	if (argc > 1 && !strcmp(argv[1], "self")) { usleep(100000); kill(0, SIGTERM); }
	if (argc > 1 && !strcmp(argv[1], "newgroup"))
		setpgid(0, 0);          /* a group of its own: a group signal to record's is not its */
	close(open("ready", O_WRONLY | O_CREAT, 0600));   /* the test signals after this */
	for (int i = 0; i < 300 && !n; i++) { tick(); usleep(10000); }
	usleep(300000);   /* a second signal would come now */
	printf(n ? "graceful shutdown\n" : "no signal\n");
	return 0;
}
