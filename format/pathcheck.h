/*
 * pathcheck.h - is a path safe to go by, for the user who records?
 *
 * fntrace goes by the trace directory's path more than once: `record`
 * after the program ends (symbol tables, the summary), the runtime in
 * every process it starts later (a child forked an hour in).  That is safe
 * only if nobody but the recording user and root can change what the path
 * names in between.  So, like ssh's StrictModes, every existing component
 * of the path, from "/", must be a directory owned by the user or by root
 * and not writable by others (unless sticky, like /tmp: then only an
 * entry's owner renames it, and the next component's owner is checked), or
 * a symbolic link owned by the user or by root, whose target is checked the
 * same way.  The last component, when it is a directory, is left to the
 * caller, which wants it the user's own.  Header-only: both the tool and the runtime use it.
 */
#ifndef FNT_PATHCHECK_H
#define FNT_PATHCHECK_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define FNT_PATHCHECK_SCRATCH (3 * PATH_MAX)

/* 0 if `path` (absolute) is safe for uid up to its last existing
 * component; -1 otherwise, with the component that is not in bad and why
 * in *why (a static string), or errno set on a system error (why NULL).
 * scratch: FNT_PATHCHECK_SCRATCH bytes (the runtime keeps them off a
 * signal handler's small stack). */
static inline int fnt_path_trusted(const char *path, uid_t uid, char *bad, size_t badlen, const char **why,
				   char *scratch)
{
	char *cur = scratch, *rest = scratch + PATH_MAX, *link = scratch + 2 * PATH_MAX;
	int links = 0;
	struct stat st;

	*why = NULL;
	if (path[0] != '/' || strlen(path) >= PATH_MAX) {
		errno = EINVAL;
		return -1;
	}
	snprintf(rest, PATH_MAX, "%s", path);
	cur[0] = 0;             /* "" is "/" */
	if (lstat("/", &st))
		return -1;
	if ((st.st_uid != uid && st.st_uid != 0) || ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))) {
		snprintf(bad, badlen, "/");
		*why = st.st_uid != uid && st.st_uid != 0 ? "it belongs to another user" :
			"it is writable by other users and not sticky";
		return -1;
	}
	for (char *p = rest; *p;) {
		char *c, *end;
		size_t cl, curl = strlen(cur);
		while (*p == '/')
			p++;
		if (!*p)
			break;
		c = p;
		end = strchr(p, '/');
		cl = end ? (size_t)(end - p) : strlen(p);
		p = end ? end : p + cl;
		if (cl == 1 && c[0] == '.')
			continue;
		if (cl == 2 && c[0] == '.' && c[1] == '.') {
			char *s = strrchr(cur, '/');
			if (s)
				*s = 0;
			continue;
		}
		if (curl + 1 + cl >= PATH_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		cur[curl] = '/';
		memcpy(cur + curl + 1, c, cl);
		cur[curl + 1 + cl] = 0;
		if (lstat(cur, &st)) {
			if (errno == ENOENT)
				return 0;       /* the rest is made by the user, in a checked directory */
			return -1;
		}
		if (S_ISDIR(st.st_mode) && !p[strspn(p, "/")])
			return 0;       /* the directory itself: its callers check it, with their messages */
		if (st.st_uid != uid && st.st_uid != 0) {
			snprintf(bad, badlen, "%s", cur);
			*why = S_ISLNK(st.st_mode) ? "it is a symbolic link that belongs to another user" :
						      "it belongs to another user";
			return -1;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(cur, link, PATH_MAX - 1);
			if (n < 0)
				return -1;
			link[n] = 0;
			if (++links > 40 || (size_t)n + 1 + strlen(p) >= PATH_MAX) {
				errno = ELOOP;
				return -1;
			}
			/* the target, then what was left */
			memmove(link + n, p, strlen(p) + 1);
			memmove(rest, link, strlen(link) + 1);
			p = rest;
			if (rest[0] == '/')
				cur[0] = 0;
			else
				cur[curl] = 0;
			continue;
		}
		if (S_ISDIR(st.st_mode) && (st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
			snprintf(bad, badlen, "%s", cur);
			*why = "it is writable by other users and not sticky";
			return -1;
		}
	}
	return 0;
}

#endif
