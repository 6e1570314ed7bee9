/*
 * rotate.c - a program linked with -lfntrace and run on its own (no
 * FNTRACE_DIR, so not under `fntrace record`) records into ./fntrace.data
 * as record does: a trace an earlier run left there moves to
 * ./fntrace.data.old first, replacing an older .old, so two runs one after
 * the other never mix in one directory.  Only fntrace's own files are ever
 * moved or removed (regular *.fnt, session, .session.tmp, argspecs, .lock,
 * and snapshot-* directories of *.fnt, symtab/ of *.sym), never through a
 * symlink, and never a directory another user owns.
 *
 * Runs at the same time: the directory is locked as record locks its own
 * (flock on DIR/.lock), but shared: each such run holds it for as long as
 * it records, and its forked children and exec'd images with it (the lock's
 * descriptor stays open across exec).  A run that finds the directory
 * held by such runs records into it beside them, as a child of theirs
 * would (each process has its own file), and moves nothing; one that finds
 * it held by a running `fntrace record` (an exclusive lock) moves nothing
 * and does not record (it says so in its one start-up message).  Only a
 * run that takes the lock exclusively, so no one holds it, may move the
 * directory away; it then holds the new one shared.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
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

/* the directory NAME in parent, if ours: its fd, else -1 */
static int open_ours(int parent, const char *name)
{
	struct stat st;
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_uid != geteuid() || !only_ours(fd, 0, 0)) {
		close(fd);
		errno = ENOTEMPTY;
		return -1;
	}
	return fd;
}

/* nobody holds dfd's lock (a recorder, a run of a linked program): 1 */
static int unheld(int dfd)
{
	int lock = openat(dfd, ".lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC), free_ = 1;
	if (lock >= 0) {
		free_ = !flock(lock, LOCK_EX | LOCK_NB);
		close(lock);
	}
	return free_;
}

/* nothing in dfd but, maybe, .lock */
static int empty(int dfd)
{
	int fd = dup(dfd), none = 1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, ".lock"))
			none = 0;
	closedir(d);
	return none;
}

/* cwd/name (held exclusively by the caller) to cwd/name.old, replacing an
 * older .old that is ours and that no one holds; 0 or -1 */
static int move_old(int cwd, const char *name)
{
	char old[256];
	struct stat st;
	int ofd;

	memcpy(old, name, strlen(name));
	memcpy(old + strlen(name), ".old", 5);
	if (!fstatat(cwd, old, &st, AT_SYMLINK_NOFOLLOW)) {
		ofd = open_ours(cwd, old);
		if (ofd < 0)
			return -1;
		int emptied = unheld(ofd) && only_ours(ofd, 0, 1);
		close(ofd);
		if (!emptied || unlinkat(cwd, old, AT_REMOVEDIR))
			return -1;
	}
	return renameat(cwd, name, cwd, old);
}

int fnt_rotate_default(const char *name)
{
	struct stat st, now;
	int cwd, fd = -1, lock = -1, ret = -1;

	if (strlen(name) + 5 > 256)
		return 0;
	cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0)
		return 0;
	/* a few rounds: another run may be moving or making it meanwhile; a
	 * record's lock is held for its whole run, another run's exclusive
	 * lock only while it decides */
	for (int round = 0; round < 200; round++) {
		if (mkdirat(cwd, name, FNT_DIR_MODE(fnt_file_mode)) && errno != EEXIST) {
			ret = 0;                /* file_open says why it cannot record */
			break;
		}
		fd = open_ours(cwd, name);
		if (fd < 0)
			break;
		lock = fnt_fd_high(openat(fd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
		if (lock < 0)
			break;
		int mine = !flock(lock, LOCK_EX | LOCK_NB);
		if (mine && !empty(fd)) {
			/* an earlier run's trace, held by no one: it moves away */
			if (move_old(cwd, name))
				break;
		} else if (!flock(lock, LOCK_SH | LOCK_NB)) {    /* (from exclusive, or beside others) */
			/* ours (made or empty), or held by runs like this one: record
			 * here, holding it as long as this process image and its
			 * children and exec'd images live, if it is still the one
			 * the name gives (it may have moved while the lock was not held) */
			if (!fstat(fd, &st) && !fstatat(cwd, name, &now, AT_SYMLINK_NOFOLLOW) && st.st_ino == now.st_ino &&
			    st.st_dev == now.st_dev) {
				if (mine) {
					char pid[16];
					int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
					if (!ftruncate(lock, 0))
						(void)!pwrite(lock, pid, (size_t)n, 0);
				}
				fcntl(lock, F_SETFD, 0);        /* held across exec too */
				lock = -1;
				ret = 0;
				break;
			}
		} else {
			struct timespec ts = { 0, 1000000 };    /* held exclusively: a record, or a run deciding */
			nanosleep(&ts, NULL);
		}
		close(lock);
		close(fd);
		lock = fd = -1;
	}
	if (lock >= 0)
		close(lock);
	if (fd >= 0)
		close(fd);
	close(cwd);
	return ret;
}
