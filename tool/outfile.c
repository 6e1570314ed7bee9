/*
 * outfile.c - an output file written whole or not at all, for the commands
 * that write one (export -o, perf-inject -o).
 *
 * A regular file (or a new one) is written under a temporary name beside
 * it and renamed over it when complete, so a reader never sees half of it
 * and a failure leaves the old one as it was; the temporary file is removed
 * if we die or are interrupted.  An existing file keeps its mode (and, for
 * root, its owner); a new one gets the mode the command gives, 0600 for
 * what is made from a trace (a trace is private: its exports hold the same
 * names, times and captured arguments, perf-inject's output perf's copies
 * of the user stack), minus the umask.  A FIFO, a device or a symlink is opened and written
 * into, never renamed over (`-o /dev/stdout` must not replace the node);
 * "-" is standard output.  out_file_open_private (archive -o) makes the
 * file 0600, new or replaced, whatever the umask and the old file's mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tool/tool.h"

static char *tmp_path;          /* removed if we die or are interrupted */

static void remove_tmp(void)
{
	if (tmp_path)
		unlink(tmp_path);
}

static void on_signal(int sig)
{
	remove_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void open_file(struct out_file *o, const char *path, mode_t mode, int private)
{
	struct stat target;
	int exists = strcmp(path, "-") && !lstat(path, &target);

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return;
	}
	if (exists && !S_ISREG(target.st_mode)) {
		/* a FIFO, a device, a symlink: written into, never replaced */
		int fd = open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 || !(o->f = fdopen(fd, "w")))
			die("cannot write '%s': %s", path, strerror(errno));
		signal(SIGXFSZ, SIG_IGN);
		return;
	}
	/* the temporary file lives beside the target, so rename() is atomic */
	char *copy = xstrdup(path);
	const char *dir = dirname(copy);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = strlen(dir) + strlen(base) + 32;
	int fd;
	tmp_path = xmalloc(len);
	snprintf(tmp_path, len, "%s/.%s.tmp.XXXXXX", dir, base);
	free(copy);
	fd = mkstemp(tmp_path);
	if (fd < 0) {
		int e = errno;
		free(tmp_path);
		tmp_path = NULL;
		die("cannot create '%s': %s", path, strerror(e));
	}
	mode_t mask = umask(0);
	umask(mask);
	/* an existing file keeps its mode (and, for root, its owner) */
	if (!private && exists && (target.st_uid != geteuid() || target.st_gid != getegid()))
		(void)!fchown(fd, target.st_uid, target.st_gid);
	if (fchmod(fd, private ? 0600 : exists ? target.st_mode & 07777 : mode & 0777 & ~mask))
		warning("cannot set the mode of '%s': %s", tmp_path, strerror(errno));
	atexit(remove_tmp);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, on_signal);
	/* past a file size limit, write() fails with EFBIG (reported) instead of killing us */
	signal(SIGXFSZ, SIG_IGN);
	o->f = fdopen(fd, "w");
	if (!o->f)
		die("cannot write '%s': %s", path, strerror(errno));
	o->renamed = 1;
}

void out_file_open(struct out_file *o, const char *path, mode_t mode)
{
	open_file(o, path, mode, 0);
}

void out_file_open_private(struct out_file *o, const char *path)
{
	open_file(o, path, 0600, 1);
}

int out_file_close(struct out_file *o, int failed)
{
	if (o->f == stdout) {
		if (fflush(stdout) || ferror(stdout)) {
			error_msg("cannot write to standard output: %s", strerror(errno));
			return -1;
		}
		return failed ? -1 : 0;
	}
	if (!o->renamed) {
		if ((fflush(o->f) || ferror(o->f) || fclose(o->f)) && !failed) {
			error_msg("cannot write '%s': %s", o->path, strerror(errno));
			return -1;
		}
		return failed ? -1 : 0;
	}
	int bad = fflush(o->f) || ferror(o->f) || fsync(fileno(o->f));
	int e = errno;
	if (fclose(o->f) && !bad) {
		bad = 1;
		e = errno;
	}
	/* one line per failure; a failed writer said its own */
	if (!failed && bad) {
		error_msg("cannot write '%s': %s (nothing was written to it)", o->path, strerror(e));
		failed = 1;
	}
	if (!failed && rename(tmp_path, o->path)) {
		error_msg("cannot rename the output to '%s': %s (nothing was written to it)", o->path,
			  strerror(errno));
		failed = 1;
	}
	if (!failed) {
		free(tmp_path);
		tmp_path = NULL;
	}
	return failed ? -1 : 0;
}
