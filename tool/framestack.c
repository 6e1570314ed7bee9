/*
 * framestack.c - stacks of open frames bounded in memory (framestack.h): the
 * call layer's, and the call tree's and report's own per-frame state.
 *
 * A trace whose calls never return (10 M entries without exits), or a
 * recursion 2,000,000 deep, keeps millions of frames open.  Held in one
 * array that took 112 bytes a frame, 220 MB for 2 M frames, more than the
 * trace itself.  Only the top of the stack is touched by the events that
 * follow (push, pop, the caller's child time), so pages below the top
 * FS_RESIDENT ones go to an unlinked temporary file (in $TMPDIR, default
 * /tmp), and a page comes back when the stack shrinks to it.  Scans of the
 * whole stack (an exit that matches a deep frame, --since reaching a
 * thread, -t promoting frames) read spilled pages back one at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "format/safeio.h"
#include "tool/framestack.h"

#define PAGE_BYTES ((size_t)FS_PAGE * s->elem)

void ps_init(struct pstack *s, size_t elem)
{
	memset(s, 0, sizeof(*s));
	s->elem = elem;
	s->fd = -1;
	s->scan_page = (size_t)-1;
}

void ps_free(struct pstack *s)
{
	for (size_t i = 0; i < s->n_page_slots; i++)
		free(s->page[i]);
	free(s->page);
	free(s->scan);
	if (s->fd >= 0)
		close(s->fd);
	ps_init(s, s->elem);
}

static int spill_fd(struct pstack *s)
{
	if (s->fd >= 0)
		return 0;
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	s->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (s->fd < 0) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/fntrace-frames-XXXXXX", dir);
		s->fd = mkstemp(path);
		if (s->fd >= 0)
			unlink(path);
	}
	if (s->fd < 0)
		return -1;
	return 0;
}

static void page_write(struct pstack *s, size_t p, const char *f)
{
	if (fnt_pwrite_all(s->fd, f, PAGE_BYTES, (off_t)(p * PAGE_BYTES)))
		die("cannot write the call stack to a temporary file in $TMPDIR: %s", strerror(errno));
}

static void page_read(struct pstack *s, size_t p, char *f)
{
	if (fnt_pread_all(s->fd, f, PAGE_BYTES, (off_t)(p * PAGE_BYTES)))
		die("cannot read the call stack back from its temporary file: %s", strerror(errno));
}

static void scan_flush(struct pstack *s)
{
	if (s->scan && s->scan_dirty)
		page_write(s, s->scan_page, s->scan);
	s->scan_dirty = 0;
}

void *ps_at(struct pstack *s, size_t i)
{
	size_t p = i / FS_PAGE;
	if (p >= s->lo)
		return s->page[p] + (i % FS_PAGE) * s->elem;
	if (s->scan_page != p) {
		scan_flush(s);
		if (!s->scan)
			s->scan = xmalloc(PAGE_BYTES);
		page_read(s, p, s->scan);
		s->scan_page = p;
	}
	s->scan_dirty = 1;      /* the caller may change it */
	return s->scan + (i % FS_PAGE) * s->elem;
}

void *ps_push(struct pstack *s)
{
	size_t i = s->n, p = i / FS_PAGE;
	if (p >= s->n_page_slots) {
		size_t n = s->n_page_slots ? s->n_page_slots * 2 : 16;
		while (n <= p)
			n *= 2;
		s->page = xrealloc(s->page, n * sizeof(*s->page));
		memset(s->page + s->n_page_slots, 0, (n - s->n_page_slots) * sizeof(*s->page));
		s->n_page_slots = n;
	}
	if (!s->page[p])
		s->page[p] = xmalloc(PAGE_BYTES);
	/* too many pages in memory: the lowest goes to the file */
	if (p - s->lo + 1 > FS_RESIDENT && !spill_fd(s)) {
		if (s->scan_page == s->lo) {     /* a stale copy of it */
			s->scan_page = (size_t)-1;
			s->scan_dirty = 0;
		}
		page_write(s, s->lo, s->page[s->lo]);
		free(s->page[s->lo]);
		s->page[s->lo] = NULL;
		s->lo++;
	}
	s->n++;
	return s->page[p] + (i % FS_PAGE) * s->elem;
}

void ps_pop(struct pstack *s)
{
	if (!s->n)
		return;
	s->n--;
	if (!s->n)
		return;
	size_t p = (s->n - 1) / FS_PAGE;
	/* keep one empty page above the top, give back the rest */
	if (p + 2 < s->n_page_slots && s->page[p + 2] && p + 2 >= s->lo) {
		free(s->page[p + 2]);
		s->page[p + 2] = NULL;
	}
	if (p >= s->lo)
		return;
	/* the new top lies in a spilled page: bring it back */
	if (s->scan_page == p && s->scan) {
		scan_flush(s);
		s->page[p] = s->scan;
		s->scan = NULL;
		s->scan_page = (size_t)-1;
	} else {
		s->page[p] = xmalloc(PAGE_BYTES);
		page_read(s, p, s->page[p]);
	}
	s->lo = p;
}
