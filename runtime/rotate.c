/*
 * rotate.c - a program linked with -lfntrace and run on its own (no
 * FNTRACE_DIR, so not under `fntrace record`) records into ./fntrace.data
 * as record does: a trace an earlier run left there moves to
 * ./fntrace.data.old first, replacing an older .old, so two runs never mix
 * in one directory.  Only fntrace's own files are ever moved or removed
 * (regular *.fnt, session, .session.tmp, argspecs, .lock, and snapshot-*
 * directories of *.fnt, symtab/ of *.sym), never through a symlink, and never a directory
 * another user owns or that a running `fntrace record` holds (its .lock).
 * When any of that is not so, nothing is touched and the runtime does not
 * record (it says so in its one start-up message).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "runtime/runtime.h"

static int own_name(const char *name, int depth)
{
	size_t l = strlen(name);
	if (l > 4 && !strcmp(name + l - 4, ".fnt"))
		return 1;
	if (depth && ((l > 4 && !strcmp(name + l - 4, ".sym")) || (l > 8 && !strcmp(name + l - 8, ".sym.tmp"))))
		return 1;       /* symtab/: symbol tables a record saved (or was writing) */
	return !depth && (!strcmp(name, "session") || !strcmp(name, ".session.tmp") ||
			  !strcmp(name, "argspecs") || !strcmp(name, ".lock"));
}

/* every entry of dfd is ours: 1 (with remove set, they are removed); 0 not */
static int only_ours(int dfd, int depth, int remove)
{
	int fd = dup(dfd), ok = 1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	struct stat st;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);            /* the dup shares the offset of earlier reads */
	while (ok && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			ok = 0;
		} else if (S_ISREG(st.st_mode) && own_name(de->d_name, depth)) {
			if (remove && unlinkat(dfd, de->d_name, 0))
				ok = 0;
		} else if (S_ISDIR(st.st_mode) && !depth &&
			   (!strncmp(de->d_name, "snapshot-", 9) || !strcmp(de->d_name, "symtab"))) {
			int sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			ok = sub >= 0 && only_ours(sub, 1, remove);
			if (sub >= 0)
				close(sub);
			if (ok && remove && unlinkat(dfd, de->d_name, AT_REMOVEDIR))
				ok = 0;
		} else {
			ok = 0;
		}
	}
	closedir(d);
	return ok;
}

/* a directory of ours that no running record holds: its fd, else -1 */
static int open_ours(int parent, const char *name)
{
	struct stat st;
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_uid != geteuid() || !only_ours(fd, 0, 0))
		goto busy;
	int lock = openat(fd, ".lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (lock >= 0) {
		int held = flock(lock, LOCK_SH | LOCK_NB) != 0;
		close(lock);
		if (held)
			goto busy;
	}
	return fd;
busy:
	close(fd);
	errno = ENOTEMPTY;
	return -1;
}

int fnt_rotate_default(const char *name)
{
	char old[256];
	int cwd, fd, ofd, ret = -1;
	struct stat st;

	if (strlen(name) + 5 > sizeof(old))
		return 0;
	cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0)
		return 0;
	if (fstatat(cwd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		ret = errno == ENOENT ? 0 : -1;      /* nothing there yet */
		goto out;
	}
	fd = open_ours(cwd, name);
	if (fd < 0)
		goto out;
	{
		/* an empty directory is used as it is */
		int dfd = dup(fd);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		struct dirent *de;
		int empty = 1;
		if (d)
			rewinddir(d);
		while (d && (de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				empty = 0;
		if (d)
			closedir(d);
		else if (dfd >= 0)
			close(dfd);
		if (empty) {
			close(fd);
			ret = 0;
			goto out;
		}
	}
	close(fd);
	memcpy(old, name, strlen(name));
	memcpy(old + strlen(name), ".old", 5);
	if (!fstatat(cwd, old, &st, AT_SYMLINK_NOFOLLOW)) {
		ofd = open_ours(cwd, old);
		if (ofd < 0)
			goto out;
		int emptied = only_ours(ofd, 0, 1);
		close(ofd);
		if (!emptied || unlinkat(cwd, old, AT_REMOVEDIR))
			goto out;
	}
	ret = renameat(cwd, name, cwd, old);
out:
	close(cwd);
	return ret;
}
