/* Children started with an explicit environment stay traced: posix_spawn,
 * posix_spawnp, execve and execle with environments that lack LD_PRELOAD
 * and the FNTRACE_* settings (or have an LD_PRELOAD of their own).  As
 * root, two children cannot be traced and the trace says so: a setuid
 * program (secure execution ignores LD_PRELOAD) and a child forked after
 * setuid() (it cannot create its file in root's trace directory). */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static char dir[4096];

static const char *in_dir(const char *name)
{
	static char buf[4200];
	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static void wait_for(pid_t pid)
{
	int st;
	waitpid(pid, &st, 0);
}

__attribute__((noinline)) void spawn_env(void)
{
	char *argv[] = { "child", "spawn", NULL }, *envp[] = { "A=1", NULL };
	pid_t pid;
	if (!posix_spawn(&pid, in_dir("child"), NULL, NULL, argv, envp))
		wait_for(pid);
}

__attribute__((noinline)) void spawnp_env(void)
{
	char *argv[] = { "child", "spawnp", NULL }, *envp[] = { "A=2", "B=2", NULL };
	pid_t pid;
	if (!posix_spawnp(&pid, "child", NULL, NULL, argv, envp))
		wait_for(pid);
}

__attribute__((noinline)) void fork_execve(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { "child", "execve", NULL }, *envp[] = { "B=3", NULL };
		execve(in_dir("child"), argv, envp);
		_exit(127);
	}
	wait_for(pid);
}

__attribute__((noinline)) void fork_execle(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *envp[] = { "LD_PRELOAD=", "A=4", "FNTRACE_DIR=mine", NULL };
		execle(in_dir("child"), "child", "execle", (char *)NULL, envp);
		_exit(127);
	}
	wait_for(pid);
}

__attribute__((noinline)) void spawn_setuid(void)
{
	char *argv[] = { "suidchild", "setuid", NULL };
	char path[4200];
	pid_t pid;
	snprintf(path, sizeof(path), "%s", in_dir("suidchild"));
	if (chown(path, 65534, 65534) || chmod(path, 04755))
		return;
	if (!posix_spawn(&pid, path, NULL, NULL, argv, environ))
		wait_for(pid);
}

__attribute__((noinline)) void grandchild_work(void)
{
}

__attribute__((noinline)) void fork_after_setuid(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (setuid(65534))
			_exit(1);
		pid_t g = fork();
		if (g == 0) {
			grandchild_work();
			_exit(0);
		}
		wait_for(g);
		exit(0);
	}
	wait_for(pid);
}

int main(int argc, char **argv)
{
	char path[8300];
	(void)argc;
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	*strrchr(dir, '/') = 0;
	snprintf(path, sizeof(path), "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/bin");
	setenv("PATH", path, 1);
	spawn_env();
	spawnp_env();
	fork_execve();
	fork_execle();
	if (geteuid() == 0) {
		spawn_setuid();
		fork_after_setuid();
	}
	return 0;
}
