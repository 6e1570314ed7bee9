/* vfork: the child runs on the parent's memory and TLS until it execs or
 * exits.  Its calls must not be written into the parent thread's stream
 * (they were, attributed to the parent and left open, "unwound"): they are
 * counted as lost instead.  A child that execs is traced in its new image
 * like any other process. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int in_parent(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int in_vfork_child(int x) { __asm__ volatile(""); return x + 2; }
__attribute__((noinline)) void vfork_child(int x)
{
	in_vfork_child(x);
	_exit(0);                        /* never returns: its entry stays open */
}
__attribute__((noinline)) int after_exec(int x) { __asm__ volatile(""); return x + 3; }

int main(int argc, char **argv)
{
	int st, s = 0;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "exec"))
		return after_exec(0) == 3 ? 0 : 1;
	s += in_parent(s);
	pid = vfork();
	if (pid == 0)
		vfork_child(1);          /* 3 events: 2 entries, 1 exit */
	waitpid(pid, &st, 0);
	s += in_parent(s);
	pid = vfork();
	if (pid == 0) {
		in_vfork_child(2);       /* 2 events */
		execl(argv[0], argv[0], "exec", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	s += in_parent(s);
	printf("%d %d\n", s, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
