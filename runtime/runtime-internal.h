/*
 * runtime-internal.h - what the files that were runtime.c share (runtime.c,
 * tracefile.c, slowpath.c, threads.c, fork.c, setjmp.c, clock.c); the rest
 * of the runtime sees runtime.h only.  Nothing here is exported from
 * libfntrace.so: every name is hidden, and the static inline functions stay
 * where the compiler can inline them, as they were in one file.
 */
#ifndef FNT_RUNTIME_INTERNAL_H
#define FNT_RUNTIME_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include "runtime/runtime.h"

/* runtime.c: start-up and exit */
extern int state FNT_HIDDEN;                  /* 0 not yet, 1 recording, 2 off */
void runtime_init(void) FNT_HIDDEN;

/* tracefile.c: the trace file, its chunks, the spare chunks, the meta stream */
extern uint32_t chunk_size FNT_HIDDEN;
extern char trace_dir[4096] FNT_HIDDEN;
extern struct fnt_trace_file main_file FNT_HIDDEN;

static inline struct fnt_trace_file *cur_file(void)
{
	struct fnt_trace_file *f = fnt_self.file;
	return likely(!f) ? &main_file : f;
}

/* Count n lost events under a counter of the file header (its offset): the
 * file of this context, or, for a vfork child that could not create one,
 * its parent's. */
#define count_lost(field, n) count_lost_at(offsetof(struct fnt_file_header, field), n)
void count_lost_at(size_t field, uint64_t n) FNT_HIDDEN;
int lock_take(int *lock) FNT_HIDDEN;
void lock_release(int *lock) FNT_HIDDEN;
#define SPARES 4
struct spare { uint8_t *map; off_t off; int passed; };
extern struct spare spares[SPARES] FNT_HIDDEN;    /* ready, in file order */
extern struct spare junk[SPARES] FNT_HIDDEN;      /* fell behind, to discard */
extern int spare_n FNT_HIDDEN, junk_n FNT_HIDDEN; /* under spare_lock */
extern int spare_lock FNT_HIDDEN;
extern int helper_running FNT_HIDDEN;             /* a helper serves this process image */
void helper_start(void) FNT_HIDDEN;
void spares_close(void) FNT_HIDDEN;
int meta_lock_take(void) FNT_HIDDEN;
void punch_tail(int64_t chunk_off, uintptr_t used) FNT_HIDDEN;
void chunk_release(struct fnt_thread *t, int punch) FNT_HIDDEN;
int thread_chunk_start(struct fnt_thread *t) FNT_HIDDEN;
int file_open(struct fnt_trace_file *tf, const struct fnt_file_header *cal, uint64_t made_ticks) FNT_HIDDEN;
int child_file_open(struct fnt_thread *t, struct fnt_trace_file *tf) FNT_HIDDEN;

/* clock.c */
int tsc_usable(void) FNT_HIDDEN;

/* slowpath.c: the hooks' slow paths and the records they write */
static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	unsigned len = fnt_varint_len(v);
	uint64_t x = fnt_varint_pack(v, len);
	memcpy(p, &x, 8);
	return p + len;
}

static inline uint64_t ext_head(uint64_t d, enum fnt_ext e)
{
	return d << 8 | (uint64_t)e << 2 | FNT_K_EXT;
}

uint8_t *put_time(uint8_t *p, uint64_t ticks) FNT_HIDDEN;
void put_thread_name(struct fnt_thread *t) FNT_HIDDEN;
void put_lost(struct fnt_thread *t) FNT_HIDDEN;
void put_thread_end(struct fnt_thread *t) FNT_HIDDEN;

/* threads.c */
extern pthread_key_t thread_key FNT_HIDDEN;
void thread_register(struct fnt_thread *t) FNT_HIDDEN;
void thread_exit_cb(void *arg) FNT_HIDDEN;

/* fork.c */
extern uint64_t fork_ticks FNT_HIDDEN;
extern uint32_t fork_tid FNT_HIDDEN, fork_note FNT_HIDDEN;
void fork_prepare(void) FNT_HIDDEN;
void fork_parent(void) FNT_HIDDEN;
void fork_child(void) FNT_HIDDEN;

#endif
