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
 * same way.  A directory writable by its group (not by others) passes when
 * that group is the user's private group (ok_gid: the user-private-group
 * convention, umask 002 as on Ubuntu, where the user is its only member;
 * (gid_t)-1 for none): nobody else can write there either.  The last component, when it is a directory, is left to the
 * caller, which wants it the user's own.  Header-only: both the tool and the runtime use it.
 */
#ifndef FNT_PATHCHECK_H
#define FNT_PATHCHECK_H

#include <errno.h>
#include <fcntl.h>
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
/* writable by someone other than the user (and root) */
static inline int fnt_path_open_to_others(const struct stat *st, gid_t ok_gid)
{
	if (st->st_mode & S_ISVTX)
		return 0;
	return (st->st_mode & 002) || ((st->st_mode & 020) && (ok_gid == (gid_t)-1 || st->st_gid != ok_gid));
}

static inline int fnt_path_trusted(const char *path, uid_t uid, gid_t ok_gid, char *bad, size_t badlen,
				   const char **why, char *scratch)
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
	if ((st.st_uid != uid && st.st_uid != 0) || fnt_path_open_to_others(&st, ok_gid)) {
		snprintf(bad, badlen, "/");
		*why = st.st_uid != uid && st.st_uid != 0 ? "it belongs to another user" :
		       (st.st_mode & 002) ? "it is writable by other users and not sticky" :
			"it is writable by its group (not your private group) and not sticky";
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
		if (S_ISDIR(st.st_mode) && fnt_path_open_to_others(&st, ok_gid)) {
			snprintf(bad, badlen, "%s", cur);
			*why = (st.st_mode & 002) ? "it is writable by other users and not sticky" :
			       "it is writable by its group (not your private group) and not sticky";
			return -1;
		}
	}
	return 0;
}

/* ---- the user's private group, from /etc/passwd and /etc/group ----
 * (no NSS: the runtime reads them in any process, a forked child too) */
struct fnt_lines {
	int fd;
	size_t len, pos;
	char buf[4096];
};

/* the next line (without its newline) into out; 0 at the end.  A line
 * longer than cap is skipped whole. */
static inline int fnt_lines_next(struct fnt_lines *r, char *out, size_t cap)
{
	size_t n = 0;
	int skip = 0;
	for (;;) {
		if (r->pos == r->len) {
			ssize_t got = read(r->fd, r->buf, sizeof(r->buf));
			if (got <= 0) {
				if (n && !skip) {
					out[n] = 0;
					return 1;
				}
				return 0;
			}
			r->len = (size_t)got;
			r->pos = 0;
		}
		char c = r->buf[r->pos++];
		if (c == '\n') {
			if (!skip) {
				out[n] = 0;
				return 1;
			}
			n = 0;
			skip = 0;
			continue;
		}
		if (n + 1 >= cap)
			skip = 1;
		else
			out[n++] = c;
	}
}

/* field k (0-based) of a ':'-separated line, or NULL; its length in *len */
static inline const char *fnt_field(const char *line, int k, size_t *len)
{
	for (; k > 0; k--) {
		line = strchr(line, ':');
		if (!line)
			return NULL;
		line++;
	}
	const char *end = strchr(line, ':');
	*len = end ? (size_t)(end - line) : strlen(line);
	return line;
}

static inline unsigned long fnt_field_num(const char *f, size_t len)
{
	unsigned long v = 0;
	if (!f || !len)
		return (unsigned long)-1;
	for (size_t i = 0; i < len; i++) {
		if (f[i] < '0' || f[i] > '9')
			return (unsigned long)-1;
		v = v * 10 + (unsigned long)(f[i] - '0');
	}
	return v;
}

/* The gid of uid's private group: its primary group when that group has
 * the user's name and no member but the user (the user-private-group
 * convention); (gid_t)-1 otherwise, or when the files do not say.  Its
 * buffers take 5 KB of stack: the runtime calls it once, at start-up
 * (tracefile.c user_group), never on a child's first event. */
static inline gid_t fnt_user_private_gid(uid_t uid)
{
	struct fnt_lines r = { .fd = -1 };
	char line[1024], name[256] = "";
	gid_t gid = (gid_t)-1, found = (gid_t)-1;
	size_t l, nl = 0;
	const char *f;

	if ((r.fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC)) < 0)
		return (gid_t)-1;
	while (fnt_lines_next(&r, line, sizeof(line))) {
		if ((f = fnt_field(line, 2, &l)) && fnt_field_num(f, l) == (unsigned long)uid) {
			const char *g = fnt_field(line, 3, &l);
			unsigned long v = fnt_field_num(g, l);
			f = fnt_field(line, 0, &nl);
			if (v != (unsigned long)-1 && nl && nl < sizeof(name)) {
				memcpy(name, f, nl);
				name[nl] = 0;
				gid = (gid_t)v;
			}
			break;
		}
	}
	close(r.fd);
	if (gid == (gid_t)-1 || (r.fd = open("/etc/group", O_RDONLY | O_CLOEXEC)) < 0)
		return (gid_t)-1;
	r.len = r.pos = 0;
	while (fnt_lines_next(&r, line, sizeof(line))) {
		if (!(f = fnt_field(line, 2, &l)) || fnt_field_num(f, l) != (unsigned long)gid)
			continue;
		const char *gn = fnt_field(line, 0, &l), *mem;
		size_t ml;
		if (l == nl && !memcmp(gn, name, nl) && (mem = fnt_field(line, 3, &ml)) &&
		    (!ml || (ml == nl && !memcmp(mem, name, nl))))
			found = gid;
		break;
	}
	close(r.fd);
	return found;
}

#endif
