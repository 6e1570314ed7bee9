/* Children started with an explicit environment stay traced: posix_spawn,
 * posix_spawnp, execve and execle with environments that lack LD_PRELOAD
 * and the FNTRACE_* settings (or have an LD_PRELOAD of their own).  So do
 * children started with the program's own environ after it took those
 * out of it (clearenv, unsetenv, putenv, setenv, environ = its own
 * array): execv, execvp, execl, execlp, system and popen.  Children that
 * cannot be traced are named in the trace: a statically linked program
 * (spawned, exec'd by a forked child, exec'd by a vfork child) and a
 * 32-bit one; a static program that carries the runtime (-lfntrace) and
 * a program started through the loader by hand are traced and not named.
 * As root, two more: a setuid program (secure execution ignores
 * LD_PRELOAD) and a child forked after setuid() (it cannot create its file
 * in root's trace directory). */
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

/* the program takes out of its own environment what tracing needs, then
 * starts a child with a call that passes environ */
__attribute__((noinline)) void clearenv_execv(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { "child", "clearenv-execv", NULL };
		clearenv();
		setenv("A", "5", 1);
		execv(in_dir("child"), argv);
		_exit(127);
	}
	wait_for(pid);
}

__attribute__((noinline)) void unsetenv_execvp(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { "child", "unsetenv-execvp", NULL };
		unsetenv("LD_PRELOAD");
		unsetenv("FNTRACE_DIR");
		setenv("B", "6", 1);
		execvp("child", argv);
		_exit(127);
	}
	wait_for(pid);
}

__attribute__((noinline)) void putenv_execl(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		putenv("LD_PRELOAD=");
		execl(in_dir("child"), "child", "putenv-execl", (char *)NULL);
		_exit(127);
	}
	wait_for(pid);
}

__attribute__((noinline)) void environ_execlp(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		static char path[4200];
		static char *own[] = { "A=7", path, NULL };
		snprintf(path, sizeof(path), "PATH=%s", dir);
		environ = own;
		execlp("child", "child", "environ-execlp", (char *)NULL);
		_exit(127);
	}
	wait_for(pid);
}

/* what the program sees of its environment after system() or popen() */
static void say_env(const char *how, const char *preload, const char *b)
{
	const char *p = getenv("LD_PRELOAD"), *d = getenv("FNTRACE_DIR"), *e = getenv("B");
	int same = (p ? preload && !strcmp(p, preload) : !preload) && !d && (e ? b && !strcmp(e, b) : !b);
	printf("%s: the program's environment %s\n", how, same ? "unchanged" : "changed");
	fflush(stdout);
}

__attribute__((noinline)) void setenv_system(void)
{
	char cmd[4300];
	pid_t pid = fork();
	if (pid == 0) {
		setenv("LD_PRELOAD", "", 1);
		unsetenv("FNTRACE_DIR");
		snprintf(cmd, sizeof(cmd), "%s system", in_dir("child"));
		if (system(cmd))
			_exit(1);
		say_env("system", "", NULL);
		_exit(0);
	}
	wait_for(pid);
}

__attribute__((noinline)) void clearenv_popen(void)
{
	char cmd[4300], line[256];
	pid_t pid = fork();
	if (pid == 0) {
		FILE *f;
		clearenv();
		setenv("B", "8", 1);
		snprintf(cmd, sizeof(cmd), "%s popen", in_dir("child"));
		if (!(f = popen(cmd, "r")))
			_exit(1);
		while (fgets(line, sizeof(line), f))
			fputs(line, stdout);
		if (pclose(f))
			_exit(1);
		say_env("popen", NULL, "8");
		_exit(0);
	}
	wait_for(pid);
}

/* started with posix_spawn, in the parent's environment */
static void spawn_it(const char *path, char *const argv[])
{
	pid_t pid;
	int st;
	if (!posix_spawn(&pid, path, NULL, NULL, argv, environ) && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st)) {
		printf("%s exited %d\n", argv[0], WEXITSTATUS(st));
		fflush(stdout);
	}
}

__attribute__((noinline)) void spawn_static(void)
{
	char *argv[] = { "static", "static-spawn", NULL };
	spawn_it(in_dir("static"), argv);
}

__attribute__((noinline)) void fork_execv_static(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { "static", "static-fork-execv", NULL };
		execv(in_dir("static"), argv);
		_exit(127);
	}
	wait_for(pid);
}

__attribute__((noinline)) void vfork_execv_static(void)
{
	char *argv[] = { "static", "static-vfork-execv", NULL };
	char path[4200];
	pid_t pid;
	snprintf(path, sizeof(path), "%s", in_dir("static"));
	pid = vfork();
	if (pid == 0) {
		execv(path, argv);
		_exit(127);
	}
	wait_for(pid);
}

/* statically linked with the runtime: traced all the same */
__attribute__((noinline)) void spawn_static_traced(void)
{
	char *argv[] = { "static-traced", "static-traced", NULL };
	spawn_it(in_dir("static-traced"), argv);
}

/* the loader run by hand has no PT_INTERP either, and preloads */
__attribute__((noinline)) void spawn_loader(void)
{
	char *argv[] = { "ld.so", (char *)in_dir("child"), "loader", NULL };
	spawn_it("/lib64/ld-linux-x86-64.so.2", argv);
}

__attribute__((noinline)) void spawn_32bit(void)
{
	char *argv[] = { "child32", NULL };
	spawn_it(in_dir("child32"), argv);
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
	clearenv_execv();
	unsetenv_execvp();
	putenv_execl();
	environ_execlp();
	setenv_system();
	clearenv_popen();
	spawn_static();
	fork_execv_static();
	vfork_execv_static();
	spawn_static_traced();
	spawn_loader();
	spawn_32bit();
	if (geteuid() == 0) {
		spawn_setuid();
		fork_after_setuid();
	}
	return 0;
}
