/*
 * drain.h - the drained ring shared by the runtime and `fntrace record`
 * (doc/perf-floor.md).
 *
 * `record` creates a memfd of FNT_DRAIN_HDR + n_slots * chunk_size bytes,
 * maps it and hands it to the program (FNTRACE_DRAIN_FD).  The runtime of
 * the first process image that claims it (owner_pid) writes its event
 * chunks into the ring's slots instead of mapping new pages of its trace
 * file: each slot stands for one chunk of that file (slot.off) and holds
 * exactly the bytes the chunk will hold.  `record` copies every full slot
 * into the trace file at its offset, zeroes it and hands it back; when the
 * program has died (or exec'ed, see image) it copies the slots still being
 * written as well.  A slot's unused tail is zeros, as a chunk's must be.
 *
 * Slot states (each move by compare-and-swap unless said otherwise):
 * - free -> writing: a thread of the runtime takes it;
 * - writing -> full (a store): the thread has finished the chunk;
 * - full -> copying -> copied -> free: record copies it into the file,
 *   marks it copied, zeroes it and frees it.  When the program is gone,
 *   also writing -> copying.
 * - full -> saving -> copied: the runtime copies it itself, once record
 *   is gone or stuck (given_up).  It never zeroes a slot and never takes
 *   one again (the ring is given up), so a slot whose copy a dying program
 *   left half done still holds every byte: record, finding it saving once
 *   the program is gone, copies it again (saving -> copying).
 * - copying -> saving: record died (or seems to, from another pid
 *   namespace) in the middle of a copy: the runtime copies it again.
 *   record zeroes only a slot it marked copied itself, and none once the
 *   runtime has given up on it (given_up): the runtime's exit copies the
 *   slots it finds being written without taking them, and one may have
 *   been finished and copied since.
 * - owner_pid 0 -> -1: record, leaving, closes a ring nobody has taken,
 *   so that no process takes it while record's last poll copies it.
 * Each swap makes one process the copier of the slot: two copies at once,
 * one zeroing the slot under the other, put zeros into the file.
 */
#ifndef FNT_DRAIN_H
#define FNT_DRAIN_H

#include <stdint.h>

#define FNT_DRAIN_MAGIC 0x3249415244544e46ull   /* "FNTDRAI2" little-endian (2: owner_ns) */
#define FNT_DRAIN_HDR 4096u                      /* control page before the slots */
#define FNT_DRAIN_MAX_SLOTS 224u
#define FNT_DRAIN_SLOTS 64u                      /* default: 16 MiB of 256 KiB chunks */

enum fnt_drain_state {
	FNT_SLOT_FREE = 0, FNT_SLOT_WRITING = 1, FNT_SLOT_FULL = 2,
	FNT_SLOT_COPYING = 3,    /* record copies it */
	FNT_SLOT_COPIED = 4,     /* in the file */
	FNT_SLOT_SAVING = 5,     /* the runtime copies it */
};

struct fnt_drain_slot {
	uint32_t state;          /* enum fnt_drain_state */
	uint32_t image;          /* the owner's image that took it (see image) */
	uint64_t off;            /* the chunk's offset in the trace file */
};

struct fnt_drain_ctl {
	uint64_t magic;
	uint32_t n_slots;
	uint32_t chunk_size;
	int32_t owner_pid;       /* the process whose runtime writes here (0: none yet) */
	uint32_t image;          /* bumped when a new image of owner_pid (after exec) lets go */
	int32_t recorder_pid;    /* the draining `fntrace record` */
	uint32_t file_set;       /* file_name, file_ino and file_dev are valid */
	char file_name[256];     /* the owner's trace file, relative to the trace directory */
	uint64_t file_ino, file_dev;
	uint64_t waits;          /* times a writer found every slot taken and waited */
	uint64_t given_up;       /* 1: the runtime went back to mapping its file (no drain) */
	uint64_t beat_ns;        /* CLOCK_MONOTONIC of record's last poll (every 8 ms at most) */
	uint64_t unreserved;     /* 1: the program takes slots without reserving their chunks' blocks in
	                            its file (its seccomp filter forbids fstat: runtime/sandbox.c) */
	uint64_t owner_ns;       /* owner_pid's pid namespace (inode; 0 unknown or not stored yet): a
	                            process of another namespace may have the same pid */
	struct fnt_drain_slot slot[FNT_DRAIN_MAX_SLOTS];
};

_Static_assert(sizeof(struct fnt_drain_ctl) <= FNT_DRAIN_HDR, "the control page holds the slots' table");

/* slot i's bytes in a ring mapped at c, of chunk_size bytes each */
static inline uint8_t *fnt_drain_slot_at(const struct fnt_drain_ctl *c, uint32_t i, size_t chunk_size)
{
	return (uint8_t *)c + FNT_DRAIN_HDR + (size_t)i * chunk_size;
}

#endif
