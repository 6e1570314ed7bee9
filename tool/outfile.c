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
 * out_file_check refuses an output that would replace what is read: the
 * trace, or a module whose names it needs.
 */
#include <dirent.h>
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

/* a file of the tree at path with st's inode: its path, malloc'd */
static char *tree_find_inode(const char *path, const struct stat *st, int depth)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char *found = NULL;

	if (!d)
		return NULL;
	while (!found && (de = readdir(d))) {
		struct stat s;
		char *p;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xmalloc(strlen(path) + strlen(de->d_name) + 2);
		sprintf(p, "%s/%s", path, de->d_name);
		if (!lstat(p, &s) && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
			found = xstrdup(p);
		else if (!lstat(p, &s) && S_ISDIR(s.st_mode) && depth < 4)
			found = tree_find_inode(p, st, depth + 1);
		free(p);
	}
	closedir(d);
	return found;
}

/* -o inside the trace directory would replace or pollute what is read:
 * refused, whatever the path says (symlinks, .., bind mounts: the inodes of
 * the output's directory and its parents are compared with the trace
 * directory's), and an existing output that is a hard link to a file of the
 * trace too (-o - when standard output is one) */
static void check_outside(const char *top, const char *out, const char *what)
{
	struct stat tst, st;
	char *real, *found = NULL;

	if (stat(top, &tst))
		return;
	if (!S_ISDIR(tst.st_mode)) {            /* a trace file named alone */
		if ((!strcmp(out, "-") ? !fstat(STDOUT_FILENO, &st) : !stat(out, &st)) &&
		    st.st_dev == tst.st_dev && st.st_ino == tst.st_ino)
			die("option '-o' names '%s', the trace file '%s': write %s elsewhere", out, top, what);
		return;
	}
	if (!strcmp(out, "-")) {
		if (!fstat(STDOUT_FILENO, &st) && S_ISREG(st.st_mode) && (found = tree_find_inode(top, &st, 0)))
			die("option '-o -': standard output is '%s', in the trace directory: write %s outside it",
			    found, what);
		return;
	}
	real = realpath(out, NULL);             /* an existing file, or what a symlink names */
	if (!real) {
		char *copy = xstrdup(out), *slash = strrchr(copy, '/'), *dir;

		if (slash)
			*(slash == copy ? slash + 1 : slash) = 0;
		dir = realpath(slash ? copy : ".", NULL);
		free(copy);
		if (!dir)
			return;             /* no such directory: nothing is written */
		real = xmalloc(strlen(dir) + 2);
		sprintf(real, "%s/", dir);  /* the directory itself is checked first */
		free(dir);
	}
	for (char *end = strrchr(real, '/'); end; end = strrchr(real, '/')) {
		*end = 0;
		if (!stat(*real ? real : "/", &st) && st.st_dev == tst.st_dev && st.st_ino == tst.st_ino)
			die("option '-o' names '%s', inside the trace directory '%s': write %s outside it", out, top,
			    what);
	}
	free(real);
	if (!stat(out, &st) && S_ISREG(st.st_mode) && st.st_nlink > 1 && (found = tree_find_inode(top, &st, 0)))
		die("option '-o' names '%s', a hard link to '%s' in the trace directory: write %s elsewhere", out,
		    found, what);
}

void out_file_check(const char *out, const char *what, const char *trace, const char *const *modules,
		    size_t n_modules, int outside)
{
	struct stat ost, mst, tst;
	char *found;

	if (outside) {
		check_outside(trace, out, what);
	} else if ((!strcmp(out, "-") ? !fstat(STDOUT_FILENO, &ost) : !stat(out, &ost)) && S_ISREG(ost.st_mode) &&
		   !stat(trace, &tst)) {
		/* a new file beside the trace's is fine; one of its files is not */
		if (ost.st_dev == tst.st_dev && ost.st_ino == tst.st_ino)
			die("option '-o' names '%s', the trace file '%s': write %s elsewhere", out, trace, what);
		if (S_ISDIR(tst.st_mode) && (found = tree_find_inode(trace, &ost, 0))) {
			if (!strcmp(out, "-"))
				die("option '-o -': standard output is '%s', a file of the trace: write %s elsewhere",
				    found, what);
			die("option '-o' names '%s', a file of the trace ('%s'): write %s elsewhere", out, found, what);
		}
	}
	/* a module of the trace (`-o ./prog`, the traced program): the file
	 * the trace's names are read from, and the archive's copy is made of,
	 * replaced; refused as a compiler refuses an output that is its input
	 * (the same inode, whatever the path) */
	if (!strcmp(out, "-") || stat(out, &ost))
		return;
	for (size_t i = 0; i < n_modules; i++)
		if (modules[i] && !stat(modules[i], &mst) && mst.st_dev == ost.st_dev && mst.st_ino == ost.st_ino) {
			char buf[512];
			die("option '-o' names '%s', a module of the trace ('%s'): write %s elsewhere", out,
			    text_safe(modules[i], buf, sizeof(buf)), what);
		}
}

static void remove_tmp(void)
{
	if (tmp_path)
		unlink(tmp_path);
}

/* the signals that end us with the temporary file removed */
static const int removing[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

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
	/* the signals that remove it held from before it exists until their
	 * handler is in place: one that came between left it behind (a
	 * SIGTERM right after the file appeared, on a loaded machine) */
	sigset_t held, was;
	sigemptyset(&held);
	for (size_t i = 0; i < sizeof(removing) / sizeof(removing[0]); i++)
		sigaddset(&held, removing[i]);
	sigprocmask(SIG_BLOCK, &held, &was);
	tmp_path = xmalloc(len);
	snprintf(tmp_path, len, "%s/.%s.tmp.XXXXXX", dir, base);
	free(copy);
	fd = mkstemp(tmp_path);
	if (fd < 0) {
		int e = errno;
		free(tmp_path);
		tmp_path = NULL;
		sigprocmask(SIG_SETMASK, &was, NULL);
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
	for (size_t i = 0; i < sizeof(removing) / sizeof(removing[0]); i++)
		signal(removing[i], on_signal);
	sigprocmask(SIG_SETMASK, &was, NULL);
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
