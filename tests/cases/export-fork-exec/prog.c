/* a forked child returns through its parent's frames (exits without
 * entries), then the parent execs itself from inside nested calls (frames
 * ended by exec); the new image names its thread as the old one was
 * named ("prog", not the kernel's "exe") */
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int after_exec(int x) { __asm__ volatile(""); return x + 2; }
__attribute__((noinline)) int spawn(void) {
	pid_t p = fork();
	if (p == 0)
		return 0;
	int st;
	waitpid(p, &st, 0);
	return 1;
}
__attribute__((noinline)) void do_exec(void) { execl("/proc/self/exe", "prog", "again", (char *)0); }
int main(int argc, char **argv) {
	(void)argv;
	if (argc > 1) {
		prctl(PR_SET_NAME, "prog");
		return after_exec(1) - 3;
	}
	in_parent(1);
	if (!spawn())
		return 0;
	do_exec();
	return 1;
}
