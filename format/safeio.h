/*
 * safeio.h - opening and reading files that a trace names or holds, when the
 * trace may come from someone else (format/safeio.c).
 *
 * A trace directory, and the module paths recorded in it, are input: any of
 * them may be a FIFO (open and read block forever), a device (/dev/ptmx
 * allocates a pty on open, /dev/zero never ends), a symlink to one, or a
 * file that someone truncates while it is mapped (SIGBUS).  Every open of
 * such a file goes through fnt_open_regular(); every mapping of one is
 * registered with fnt_mapguard_add().
 */
#ifndef FNT_SAFEIO_H
#define FNT_SAFEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define FNT_OPEN_NOFOLLOW 1   /* refuse a symbolic link (files found inside a trace directory) */

/* Open path read-only, non-blocking, never as a controlling terminal, and
 * only if it is a regular file (the inode is checked before it is opened
 * for reading, through an O_PATH descriptor, so that no device is ever
 * opened, and with fstat after it).  Returns the fd
 * (O_NONBLOCK is left set: harmless on regular files), or -1 with a short
 * reason in *why ("No such file or directory", "not a regular file (a FIFO)")
 * and in errno (ENOENT only when there is no such file; EINVAL, EISDIR or
 * ELOOP when it is not a regular file).
 * st, if not NULL, gets the fstat of the open file. */
int fnt_open_regular(const char *path, int flags, struct stat *st, const char **why);

/* Read at most max bytes of the regular file path (as above) into a new
 * NUL-terminated buffer.  Returns it (free() it) with *len, or NULL with *why
 * and errno. */
char *fnt_read_small(const char *path, int flags, size_t max, size_t *len, const char **why);

/* pwrite/pread all n bytes at off, going on after a short count: 0, or -1
 * with errno saying why (a short count alone leaves errno as it was, and a
 * message built from it names some earlier error: a write that stops with
 * nothing written is ENOSPC, a read that meets the end of the file EIO) */
int fnt_pwrite_all(int fd, const void *buf, size_t n, off_t off);
int fnt_pread_all(int fd, void *buf, size_t n, off_t off);

/* Hash tables whose keys a trace chooses (addresses, paths) must not let it
 * pick keys that share one chain: each table hashes with a seed nobody who
 * wrote the trace can know, and every key bit reaches every bit of the hash
 * (the finalizer of splitmix64). */
uint64_t fnt_hash_seed(void);
static inline uint64_t fnt_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Mappings of trace files that may shrink while they are read.  While a
 * mapping is registered, a SIGBUS on one of its pages (the file was cut
 * under it) replaces the page with zeros, which the format reads as the end
 * of the data, and counts it; any other SIGBUS kills the process as usual.
 * Not async-signal-safe: call add/remove outside signal handlers. */
void fnt_mapguard_add(const void *base, size_t len);
void fnt_mapguard_remove(const void *base);
/* bytes of the mapping at base that read as zeros because the file was cut */
uint64_t fnt_mapguard_cut(const void *base);

#endif
