/*
 * tracedir.c - the trace directory that `fntrace record` writes into, and
 * the path through which it preloads the runtime.
 *
 * A trace can hold captured strings (passwords), and the directory may sit
 * where others can plant names (a shared /tmp, a directory of another
 * user).  So everything here works relative to directory descriptors, opens
 * with O_NOFOLLOW, creates with O_EXCL, and touches an existing entry only
 * after it has been seen to be one of fntrace's own files (a regular file
 * named session, .session.tmp, argspecs, .lock or *.fnt, or a snapshot-*
 * directory of *.fnt, or symtab/ of *.sym).  Anything else, a symlink above all, stops the record
 * with a message instead of being followed, emptied or overwritten.
 *
 * The directory is locked (flock on DIR/.lock) for as long as record runs:
 * a second record into it, or one that would rotate it to DIR.old, is
 * refused while the first still writes there; so is a record into the
 * directory of a program linked with -lfntrace and run on its own, which
 * holds it shared (runtime/rotate.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tool/tool.h"
#include "tool/tracedir.h"
#include "format/pathcheck.h"

#define SNAPSHOT_PREFIX "snapshot-"

void trace_dir_modes(struct trace_dir *td, const char *mode)
{
	unsigned long m = 0600;
	if (mode) {
		char *end;
		errno = 0;
		m = strtoul(mode, &end, 8);
		if (!*mode || *end || errno || (m & ~0644ul) || (m & 0600) != 0600)
			die_usage("option '--mode' takes octal file permissions from 0600 to 0644: read "
				  "and write for you, read for group or others (e.g. 0640), not '%s'", mode);
	}
	td->file_mode = (mode_t)m;
	td->dir_mode = (mode_t)(m | ((m & 0444) >> 2));
	td->fd = td->lock_fd = -1;
}

static int is_own_name(const char *name, int depth)
{
	size_t l = strlen(name);
	if (l > 4 && !strcmp(name + l - 4, ".fnt"))
		return 1;
	if (depth && ((l > 4 && !strcmp(name + l - 4, ".sym")) || (l > 8 && !strcmp(name + l - 8, ".sym.tmp"))))
		return 1;       /* symtab/: the saved symbol tables (and one being written) */
	return !depth && (!strcmp(name, "session") || !strcmp(name, ".session.tmp") ||
			  !strcmp(name, "argspecs") || !strcmp(name, ".lock"));
}

/* 1 if dfd holds only fntrace's files; else 0 and *bad names the first
 * other entry.  *empty: it holds nothing at all. */
static int holds_only_trace(int dfd, int depth, int *empty, char *bad, size_t badlen)
{
	int fd = dup(dfd), ok = 1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	*empty = 1;
	if (!d) {
		if (fd >= 0)
			close(fd);
		snprintf(bad, badlen, ".");
		return 0;
	}
	rewinddir(d);
	while (ok && (de = readdir(d))) {
		struct stat st;
		int sub, dummy;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		*empty = 0;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			ok = 0;
		else if (S_ISREG(st.st_mode))
			ok = is_own_name(de->d_name, depth);
		else if (S_ISDIR(st.st_mode) && !depth &&
			 (!strncmp(de->d_name, SNAPSHOT_PREFIX, strlen(SNAPSHOT_PREFIX)) ||
			  !strcmp(de->d_name, "symtab")) &&
			 (sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			ok = holds_only_trace(sub, 1, &dummy, bad, badlen);
			close(sub);
			if (!ok)
				continue;       /* bad names the file inside */
		} else
			ok = 0;
		if (!ok)
			snprintf(bad, badlen, "%s", de->d_name);
	}
	closedir(d);
	return ok;
}

/* remove everything in dfd, which holds_only_trace accepted: a
 * subdirectory is entered without following a link */
static void empty_dir(int dfd)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		int sub;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!unlinkat(dfd, de->d_name, 0) || errno != EISDIR)
			continue;
		sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		empty_dir(sub);
		close(sub);
		unlinkat(dfd, de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/* ours, and no other user can add or rename names in it */
static void check_owner(int dfd, const char *path)
{
	struct stat st;
	if (fstat(dfd, &st))
		die("cannot examine '%s': %s", path, strerror(errno));
	if (st.st_uid != geteuid())
		die("'%s' belongs to another user (uid %u); record into a directory of your own with -d",
		    path, (unsigned)st.st_uid);
	if (fnt_path_open_to_others(&st, fnt_user_private_gid(geteuid())))   /* (its group may be the user's own) */
		die("'%s' is writable by other users, who could plant files in it; make it private "
		    "(chmod go-w '%s') or choose another directory with -d", path, path);
}

/* Lock dfd's .lock (created when create is set); -1 if there is none to
 * lock.  Dies if another record holds it. */
static int lock_dir(int dfd, const char *path, int create)
{
	/* 0600 whatever --mode says: only recorders need it */
	int fd = openat(dfd, ".lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
	char buf[32];
	if (fd < 0) {
		if (!create && errno == ENOENT)
			return -1;
		die("cannot open '%s/.lock': %s", path, strerror(errno));
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = errno == EWOULDBLOCK ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
		if (n < 0)
			die("cannot lock '%s/.lock': %s", path, strerror(errno));
		buf[n] = 0;
		/* a program linked with -lfntrace, run on its own, holds its
		 * directory shared (runtime/rotate.c); record holds it exclusively */
		int other = openat(dfd, ".lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (other >= 0 && !flock(other, LOCK_SH | LOCK_NB))
			die("'%s' is in use by a running program linked with -lfntrace that records into it "
			    "(pid %d); wait for it to end or choose another directory with -d", path, atoi(buf));
		die("'%s' is in use by another 'fntrace record' (pid %d); wait for it to end or "
		    "choose another directory with -d", path, atoi(buf));
	}
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, strlen(buf), 0) < 0)
		warning("cannot write '%s/.lock': %s", path, strerror(errno));
	return fd;
}

/* DIR.old goes, unless it is not a trace of ours or a record still holds it */
static void remove_old(int pfd, const char *base, const char *old)
{
	struct stat st;
	char bad[NAME_MAX + 1];
	int ofd, lock, empty;
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return;
		die("cannot examine '%s': %s", old, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		die("cannot move the previous trace to '%s': it is a symbolic link, which fntrace "
		    "did not make; remove it or choose another directory with -d", old);
	if (!S_ISDIR(st.st_mode))
		die("cannot move the previous trace to '%s': it exists and is not a fntrace trace", old);
	ofd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (ofd < 0)
		die("cannot open '%s': %s", old, strerror(errno));
	check_owner(ofd, old);
	if (!holds_only_trace(ofd, 0, &empty, bad, sizeof(bad)))
		die("cannot move the previous trace to '%s': it exists and holds '%s', which fntrace "
		    "did not make; remove it or choose another directory with -d", old, bad);
	lock = lock_dir(ofd, old, 0);
	empty_dir(ofd);
	if (unlinkat(pfd, base, AT_REMOVEDIR))
		die("cannot remove the trace before last, '%s': %s", old, strerror(errno));
	if (lock >= 0)
		close(lock);
	close(ofd);
}

void trace_dir_prepare(struct trace_dir *td, const char *dir)
{
	char *copy = xstrdup(dir), *pcopy, *base, *old;
	char bad[NAME_MAX + 1];
	struct stat st;
	int pfd, empty;
	size_t l = strlen(copy);

	while (l > 1 && copy[l - 1] == '/')
		copy[--l] = 0;
	{
		/* the whole path: record and the runtime go by it again later
		 * (format/pathcheck.h) */
		char abs[PATH_MAX], comp[PATH_MAX], scratch[FNT_PATHCHECK_SCRATCH];
		const char *why;
		if (copy[0] == '/')
			snprintf(abs, sizeof(abs), "%s", copy);
		else if (!getcwd(abs, sizeof(abs)) || strlen(abs) + 1 + l >= sizeof(abs))
			die("cannot resolve '%s': %s", dir, strerror(errno));
		else
			snprintf(abs + strlen(abs), sizeof(abs) - strlen(abs), "/%s", copy);
		if (fnt_path_trusted(abs, geteuid(), fnt_user_private_gid(geteuid()), comp, sizeof(comp), &why,
				     scratch)) {
			if (why)
				die("cannot record into '%s': '%s' on its path is not safe: %s, who could "
				    "swap the trace directory for another; choose a directory that only you "
				    "(and root) can change with -d", dir, comp, why);
			die("cannot examine the path of '%s': %s", dir, strerror(errno));
		}
	}
	pcopy = xstrdup(copy);
	base = basename(copy);
	pfd = open(dirname(pcopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		die("cannot create '%s': %s", dir, strerror(errno));
	if (!fstatat(pfd, base, &st, 0)) {
		int dfd, lock;
		if (!S_ISDIR(st.st_mode))
			die("'%s' exists and is not a directory; choose another trace directory with -d", dir);
		dfd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			die("cannot open '%s': %s", dir, strerror(errno));
		check_owner(dfd, dir);
		if (!holds_only_trace(dfd, 0, &empty, bad, sizeof(bad)))
			die("'%s' exists and holds '%s', which fntrace did not make; "
			    "choose another directory with -d", dir, bad);
		lock = lock_dir(dfd, dir, 1);
		if (!empty) {
			/* the previous trace moves to DIR.old, whose own predecessor goes */
			char *oldbase = xmalloc(strlen(base) + 8);
			old = xmalloc(strlen(copy) + 8);
			sprintf(old, "%s.old", copy);
			sprintf(oldbase, "%s.old", base);
			remove_old(pfd, oldbase, old);
			if (renameat(pfd, base, pfd, oldbase))
				die("cannot move the previous trace '%s' to '%s': %s", dir, old, strerror(errno));
			free(old);
			free(oldbase);
			close(lock);
			close(dfd);
			goto create;
		}
		/* an empty directory made for us: keep it and its mode */
		td->fd = dfd;
		td->lock_fd = lock;
		goto out;
	} else if (errno != ENOENT) {
		die("cannot examine '%s': %s", dir, strerror(errno));
	}
create:
	if (mkdirat(pfd, base, td->dir_mode))
		die("cannot create '%s': %s", dir, strerror(errno));
	td->fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (td->fd < 0)
		die("cannot open '%s': %s", dir, strerror(errno));
	if (fchmod(td->fd, td->dir_mode))       /* exactly: the umask may be narrower or wider */
		warning("cannot set the mode of '%s': %s", dir, strerror(errno));
	td->lock_fd = lock_dir(td->fd, dir, 1);
out:
	close(pfd);
	free(copy);
	free(pcopy);
}

int trace_dir_create(struct trace_dir *td, const char *name)
{
	int fd;
	if (unlinkat(td->fd, name, 0) && errno != ENOENT)
		return -1;
	fd = openat(td->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, td->file_mode);
	if (fd >= 0 && fchmod(fd, td->file_mode)) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

void trace_dir_remove(struct trace_dir *td, const char *dir)
{
	empty_dir(td->fd);
	rmdir(dir);
	close(td->fd);
	if (td->lock_fd >= 0)
		close(td->lock_fd);
	td->fd = td->lock_fd = -1;
}

/* LD_PRELOAD splits its value at spaces and colons, so a runtime installed
 * under such a path would silently record nothing.  Preload it through a
 * symlink in a private directory instead (mkdtemp makes it 0700 and ours);
 * *tmpdir is that directory, for trace_dir_unlink_preload after the run. */
char *trace_dir_preload_path(const char *lib, char **tmpdir)
{
	const char *base = getenv("TMPDIR");
	char *dir, *link;
	*tmpdir = NULL;
	if (!strpbrk(lib, " \t\n:"))
		return xstrdup(lib);
	if (!base || !*base || strpbrk(base, " \t\n:") || base[0] != '/')
		base = "/tmp";
	dir = xmalloc(strlen(base) + 32);
	sprintf(dir, "%s/fntrace-preload-XXXXXX", base);
	{
		/* a $TMPDIR that someone else may change (theirs, or open to
		 * all without the sticky bit) could have the directory renamed
		 * and another put in its place, with their library to preload
		 * into the program, as the user who records: /tmp then (found by
		 * an adversarial review) */
		char comp[PATH_MAX], scratch[FNT_PATHCHECK_SCRATCH];
		const char *why = NULL;
		if (strcmp(base, "/tmp") &&
		    fnt_path_trusted(dir, geteuid(), fnt_user_private_gid(geteuid()), comp, sizeof(comp), &why,
				     scratch)) {
			base = "/tmp";
			sprintf(dir, "%s/fntrace-preload-XXXXXX", base);
		}
		if (fnt_path_trusted(dir, geteuid(), fnt_user_private_gid(geteuid()), comp, sizeof(comp), &why,
				     scratch))
			die("the runtime's path '%s' has a space or a colon, which LD_PRELOAD cannot take, and "
			    "'%s', where a private directory for a link to it would go, is not safe: %s; install "
			    "fntrace under a path without them", lib, comp, why ? why : strerror(errno));
	}
	if (!mkdtemp(dir))
		die("the runtime's path '%s' has a space or a colon, which LD_PRELOAD cannot take, and "
		    "a private directory for a link to it cannot be made in '%s': %s; install fntrace "
		    "under a path without them", lib, base, strerror(errno));
	link = xmalloc(strlen(dir) + 32);
	sprintf(link, "%s/libfntrace.so", dir);
	if (symlink(lib, link))
		die("cannot link '%s' to '%s': %s", link, lib, strerror(errno));
	*tmpdir = dir;
	return link;
}

void trace_dir_unlink_preload(char *link, char *tmpdir)
{
	if (tmpdir) {
		unlink(link);
		rmdir(tmpdir);
	}
	free(link);
	free(tmpdir);
}
