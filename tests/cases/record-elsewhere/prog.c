/* "ns DIR TRACE": enters a mount namespace of its own with a tmpfs on DIR
 * and makes TRACE (a directory in DIR) there, as a private /tmp would;
 * "chroot DIR": enters a chroot.  Then forks a child making 5000 calls. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) void work(int i) { __asm__ volatile("" : : "r"(i)); }
int main(int argc, char **argv)
{
	work(-1);
	if (argc > 3 && !strcmp(argv[1], "ns")) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tmpfs", argv[2], "tmpfs", 0, "mode=0755") || mkdir(argv[3], 0700)) {
			perror("namespace");
			return 2;
		}
	} else if (argc > 2 && !strcmp(argv[1], "chroot")) {
		if (chroot(argv[2]) || chdir("/")) {
			perror("chroot");
			return 2;
		}
	}
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 5000; i++)
			work(i);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	printf("done\n");
	return 0;
}
