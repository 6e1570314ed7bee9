"""The peak RSS of an fntrace command, for the memory cases."""
import os
import subprocess


# A process forked from this one starts with its memory counted in its
# peak RSS (and one spawned from it, too: the kernel keeps the larger), so
# the peak comes from a small C program that forks fntrace and reports its
# child's ru_maxrss.
PEAK_C = r"""
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>
int main(int argc, char **argv)
{
	(void)argc;
	int st;
	struct rusage ru;
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("%ld\n", ru.ru_maxrss);
	return 0;
}
"""


def peak_rss_kb(ctx, args, data=None):
    """the peak RSS of `fntrace ARGS -d DATA` (the case's trace by default) in KB, its output discarded"""
    helper = os.path.join(ctx.work, "peak")
    if not os.path.exists(helper):
        with open(helper + ".c", "w") as f:
            f.write(PEAK_C)
        subprocess.run(["cc", "-O2", "-o", helper, helper + ".c"], check=True)
    p = subprocess.run([helper, ctx.fntrace] + args + ["-d", data or ctx.data], stdout=subprocess.PIPE, text=True)
    assert p.returncode == 0, (args, p.returncode)
    return int(p.stdout)
