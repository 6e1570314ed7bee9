/*
 * tracedir.h - the trace directory as `fntrace record` prepares it: checked,
 * locked, rotated and filled without following a symlink it did not make.
 */
#ifndef FNT_TRACEDIR_H
#define FNT_TRACEDIR_H

#include <sys/types.h>

struct trace_dir {
	int fd;                 /* the directory itself (O_DIRECTORY) */
	int lock_fd;            /* DIR/.lock, flock()ed for as long as record runs */
	mode_t file_mode;       /* of every file in it (default 0600) */
	mode_t dir_mode;        /* of the directories (file_mode, plus x where r) */
};

/* the default modes, or --mode's octal MODE (die_usage if not 0600..0666) */
void trace_dir_modes(struct trace_dir *td, const char *mode);
/* Make DIR ready to record into, or die with a message that says why not:
 * owned by us and not writable by others, not held by another record,
 * holding nothing but fntrace's own files (an old trace moves to DIR.old). */
void trace_dir_prepare(struct trace_dir *td, const char *dir);
/* Create NAME in the directory, replacing a previous file of ours that has
 * that name: O_CREAT|O_EXCL|O_NOFOLLOW, mode td->file_mode.  -1, errno. */
int trace_dir_create(struct trace_dir *td, const char *name);
/* remove what trace_dir_prepare made, after the program could not run */
void trace_dir_remove(struct trace_dir *td, const char *dir);

/* the path to put in LD_PRELOAD for the runtime lib: lib itself, or a link
 * to it in a private temporary directory (*tmpdir) when lib's path has a
 * space or a colon; trace_dir_unlink_preload removes that link when done */
char *trace_dir_preload_path(const char *lib, char **tmpdir);
void trace_dir_unlink_preload(char *link, char *tmpdir);

#endif
