/*
 * fork.c - fork: the pthread_atfork steps (also taken by the clone()
 * wrapper, clone.c, and for a raw clone found at its first event).  The
 * child gets its own file, its own module map and its own thread serials;
 * its forking thread goes on at the same depth, and its first chunk notes
 * where its inherited frames come from (FNT_EXT_FORK).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "runtime/runtime-internal.h"

/* the fork the child's first chunk notes (FNT_EXT_FORK): when, from which thread */
uint64_t fork_ticks;
uint32_t fork_tid, fork_note;

static int fork_meta_locked, fork_spare_locked, fork_modules_locked;

void fork_prepare(void)
{
	fork_modules_locked = fnt_modules_lock();
	fork_meta_locked = !meta_lock_take();
	fork_spare_locked = !lock_take(&spare_lock);
	/* before the fork: every later event of the parent comes after.  Once
	 * the locks are held, so that another thread's fork (a wrapped clone,
	 * which no libc lock serialises) cannot write its time in between */
	fork_ticks = fnt_now();
}

void fork_parent(void)
{
	struct fnt_trace_file *tf = &main_file;
	if (fork_spare_locked)
		lock_release(&spare_lock);
	if (fork_meta_locked)
		__atomic_store_n(&tf->meta_lock, 0, __ATOMIC_RELEASE);
	if (fork_modules_locked)
		fnt_modules_unlock();
}

/* In the child: its own file, its own module map, its own thread serials.
 * The forking thread's chunk belongs to the parent's file: drop it unused. */
static void fork_child_common(int raw)
{
	struct fnt_trace_file *tf = &main_file;
	struct fnt_thread *t = &fnt_self;
	struct fnt_file_header cal;
	int32_t depth = t->depth, stk_base = t->stk_base;

	fnt_fork_mask_init();           /* (its page reads as zeros in a child) */
	tf->meta_lock = 0;
	spare_lock = 0;
	if (raw || !fork_modules_locked)
		fnt_modules_lock_reset();   /* no prepare step, or it did not take it: held by whoever held it then */
	else
		fnt_modules_unlock();   /* taken by fork_prepare on this same thread */
#ifndef FNT_STATIC_ARCHIVE
	fnt_patch_fork_child();         /* a pad switch another thread was making */
#endif
	fnt_coro_fork_child();          /* and stack switches */
	/* the helper did not come along; its spares are the parent's chunks */
	helper_running = 0;
	while (spare_n)
		munmap(spares[--spare_n].map, chunk_size);
	while (junk_n)
		munmap(junk[--junk_n].map, chunk_size);
	if (state != 1)
		return;
	memcpy(&cal, tf->hdr, sizeof(cal));
	/* (a seccomp filter may forbid the calls below: then the child
	 * keeps the parent's mappings and records nothing: sandbox.c) */
	int blind = fnt_file_calls_denied();
	uint8_t *chunk = t->chunk;
	t->chunk = t->pos = t->limit = NULL;     /* before it goes (as chunk_release) */
	__asm__ volatile("" ::: "memory");
	if (chunk && !fnt_drain_owns(chunk) && !blind)
		munmap(chunk, chunk_size);
	if (!blind)
		fnt_drain_fork_child();         /* the ring is the parent's, and its slots */
	if (tf->meta_chunk && !blind)
		munmap(tf->meta_chunk, chunk_size);
	tf->meta_chunk = tf->meta_pos = tf->meta_end = NULL;
	tf->meta_seq = 0;
	/* the parent's header stays mapped until the child has a file: one
	 * that cannot make it says so there */
	struct fnt_file_header *parent_hdr = tf->hdr;
	if (!blind)
		close(tf->fd);
	tf->hdr = NULL;
	tf->fd = -1;
	if (blind) {
		state = 2;
		return;
	}
	tf->pid = (uint32_t)getpid();
	/* when it was made: a raw clone had no prepare step, and fork_ticks
	 * is an earlier fork's (or 0); its first event is the closest */
	int failed = file_open(tf, &cal, raw ? fnt_now() : fork_ticks);
	/* (a directory the child may not write, or a path that names
	 * another directory: the parent has listed it as untraced already,
	 * exec.c's note_fork) */
	if (failed && !fnt_trace_dir_elsewhere() && !fnt_denied(SYS_faccessat2) && !fnt_denied(SYS_faccessat) &&
	    !faccessat(AT_FDCWD, trace_dir, W_OK | X_OK, AT_EACCESS))
		__atomic_add_fetch(&parent_hdr->children_nofile, 1, __ATOMIC_RELAXED);
	munmap(parent_hdr, FNT_HEADER_SIZE);
	if (failed) {
		state = 2;
		return;
	}
	fnt_drain_fork_file(tf->path, (uint64_t)tf->ino, (uint64_t)tf->dev);
	fnt_modules_fork_child();
	if (fnt_paused())       /* the parent's file said so; this one starts saying it */
		fnt_recording_note();
	/* the child goes on at the same depth; the reader learns it from the
	 * first chunk header, and which frames those are from the parent's
	 * thread at fork_ticks (FNT_EXT_FORK, below) */
	fork_tid = t->tid;
	fork_note = depth > 0 && !raw;  /* (a raw clone's fork time is not known: its inherited frames neither) */
	uint32_t busy = t->busy;
	fnt_filter_thread_exit(t);       /* -t: the saved positions were in the parent's chunk */
	t->state = FNT_T_NEW;
	thread_register(t);     /* (clears the ring: its chunks are the parent's) */
	t->depth = depth;
	t->stk_base = stk_base;
	t->busy = busy;
}

void fork_child(void)
{
	fork_child_common(0);
}

/* A process cloned by a raw system call, found at its first event (clone.c) */
void fnt_raw_fork_child(void)
{
	fork_child_common(1);
}

void fnt_fork_prepare(void) { fork_prepare(); }
void fnt_fork_parent(void) { fork_parent(); }
void fnt_fork_child(void) { fork_child(); }
