/*
 * threads.c - a thread's life in the trace: registered at its first written
 * event (a serial, a THREAD meta record, the pthread key whose destructor
 * sees it exit), and its last records written when it exits.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "runtime/runtime-internal.h"

pthread_key_t thread_key;

/* Which thread's thread-local storage a context runs on.  A child cloned
 * with CLONE_VM and without CLONE_SETTLS by a raw system call runs on its
 * parent thread's, and gettid alone cannot tell it from that thread when
 * the thread has made no traced call yet (its id not yet known).  glibc
 * keeps the kernel's id of the thread in its descriptor (struct pthread,
 * at pthread_self(): the kernel writes it there when the thread is made),
 * and describes the field for debuggers in _thread_db_pthread_tid (size in
 * bits, count, offset; what libthread_db reads).  The offset, plus one; 0
 * when libc has no such description or it does not hold at start-up. */
static uint32_t owner_tid_at;

void fnt_tls_owner_init(void)
{
#ifndef FNT_STATIC_ARCHIVE
	const uint32_t *desc = dlsym(RTLD_DEFAULT, "_thread_db_pthread_tid");
	if (!desc || desc[0] != 32 || desc[1] != 1 || desc[2] > 4096)
		return;
	owner_tid_at = desc[2] + 1;
	if (fnt_tls_owner() != fnt_gettid())
		owner_tid_at = 0;       /* not what the calling thread's id is: not trusted */
#endif
}

/* the id libc's descriptor holds, or 0 */
static uint32_t descriptor_tid(void)
{
	if (owner_tid_at) {
		int32_t tid = *(const int32_t *)((const char *)pthread_self() + owner_tid_at - 1);
		if (tid > 0)
			return (uint32_t)tid;
	}
	return 0;
}

uint32_t fnt_tid_cached(void)
{
	uint32_t tid = descriptor_tid();
	return tid ? tid : fnt_self.tid;
}

uint32_t fnt_tls_owner(void)
{
	uint32_t tid = descriptor_tid();
	return tid ? tid : fnt_gettid();
}

/* A fresh state for the thread, but for what outlives registration (its
 * first written event, or a forked child's first event): the record-time
 * filters' state and the setjmp buffers (a thread may pass filtered calls
 * and call setjmp before its first written event), the shadow stack (it
 * describes the real stack), the window of stack pointers seen (it tells a
 * clone's child from the thread at the next event), the shadow stacks of
 * parked coroutine stacks (their frames return through them later, in a
 * forked child too), and a vfork child's file and save area, and the depth
 * it goes on at; the functions the filters noted by depth go with them.  The other fields are cleared one by one, with no copy of
 * the kept ones on the stack: this runs on a signal handler's small stack
 * too (doc/safety.md).  The machine stack in use, its own stack's key, and
 * the thread's place in coro.c's list of runners are kept as well. */
_Static_assert(offsetof(struct fnt_thread, erase_from) + sizeof(uint8_t *) == sizeof(struct fnt_thread),
	       "thread_register: a new field of struct fnt_thread: keep it or clear it here");

static void thread_fresh(struct fnt_thread *t)
{
	uintptr_t stk_lo = t->stk_lo, stk_span = t->stk_span;
	int32_t depth = t->file ? t->depth : 0;

	t->stk_base -= t->depth - depth;   /* (as many calls open on the stack in use) */

	memset(t, 0, offsetof(struct fnt_thread, chunk));       /* the hot fields, the cache */
	t->stk_lo = stk_lo;
	t->stk_span = stk_span;
	t->depth = depth;
	t->chunk = NULL;
	t->chunk_off = 0;
	t->serial = t->tid = t->seq = t->state = t->pid = 0;
	t->lost = 0;
	memset(t->ring, 0, sizeof(t->ring));
	t->ring_n = t->ring_next = 0;
	t->ss_restored = 0;
	t->tls_shared = t->tls_busy = 0;
	t->tls_word = NULL;
	t->stk_hint = t->stk_raised = 0;
	t->checked_at = 0;
	t->erase_from = NULL;
}

void thread_register(struct fnt_thread *t)
{
	struct fnt_trace_file *tf = cur_file();
	struct fnt_meta_thread mt;

	thread_fresh(t);
	t->busy = 1;                    /* the caller holds the guard */
	t->pid = tf->pid;
	t->tid = fnt_gettid();
	t->serial = (uint32_t)__atomic_fetch_add(&tf->hdr->next_thread, 1, __ATOMIC_RELAXED);
	memset(&mt, 0, sizeof(mt));
	mt.ticks = fnt_now();
	mt.thread = t->serial;
	mt.tid = t->tid;
	fnt_thread_name(mt.name);
	fnt_meta_append(FNT_META_THREAD, &mt, sizeof(mt), NULL, 0);
	if (!t->file)           /* (a vfork child's thread is its parent's) */
		pthread_setspecific(thread_key, t);
	fnt_trigger_thread_start(t);
	t->state = FNT_T_ACTIVE;
}

/* The thread ends with calls open on its own stack: it left them without
 * their returns (a cancellation's unwind ends in start_thread, past the
 * thread's outermost frame, which has no cleanup to land in; pthread_exit
 * under -finstrument-functions frames that no cleanup closes).  They close
 * as unwound, -C and -t erasing first those their returns would have.
 * Not while recording is off: calls that returned then still count as
 * open. */
static void left_open(struct fnt_thread *t)
{
	int32_t n = t->depth;
	if (t->stk_base || fnt_paused())
		return;
	if (n > 0 && unlikely(fnt_filtering))
		n -= fnt_filter_unwind_erase(t, 0);
	if (n > 0 && unlikely(fnt_trig_flags & FNT_TRIG_TIME))
		n -= fnt_trigger_unwind_erase(t, 0);
	if (n > 0)
		fnt_put_unwind(t, (uint32_t)n);
	/* (and the filters' depth, written calls or not: a later key
	 * destructor's calls are outside them) */
	fnt_filter_longjmp(t, 0);
}

/* ...and the shadow stack's frames of those calls, when every one is on
 * the machine stack the thread runs on now, its own: they are dead (a
 * fiber's, left by a hand-written switch, are parked for the thread that
 * resumes it: fnt_coro_thread_exit).  Parked, they filled the registry of
 * parked stacks, 4,096 cancelled threads on, and their shadow stacks
 * (2.5 MB each) were never unmapped. */
static void own_frames_drop(struct fnt_thread *t)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0), span = t->stk_span & fnt_fork_mask;
	if (!t->ss_top || sp - t->stk_lo > span)
		return;
	for (uint32_t i = 0; i < t->ss_top; i++)
		if (t->ss[i].slot - t->stk_lo > span)
			return;
	t->ss_top = 0;          /* (not to the graveyard: the stack's memory serves the next thread) */
}

/* pthread key destructor: the thread is exiting. */
void thread_exit_cb(void *arg)
{
	struct fnt_thread *t = arg;
	if (t != &fnt_self)
		return;
	own_frames_drop(t);
	fnt_coro_thread_exit(t);        /* its own stack leaves the registry of parked stacks */
	if (t->state != FNT_T_ACTIVE || !t->chunk || t->busy) {
		/* a thread that wrote no event (-pg calls all filtered out, or
		 * recording off) has a shadow stack too: 2.5 MB each, kept */
		if (!t->busy) {
			fnt_filter_thread_gone(t);
			fnt_shadow_release(t);
		}
		return;
	}
	t->busy = FNT_BUSY_RUNTIME;
	if (t->pos >= t->limit && thread_chunk_start(t)) {
		t->busy = 0;
		return;
	}
	put_lost(t);
	left_open(t);
	put_thread_name(t);
	put_thread_end(t);
	chunk_release(t, 1);
	fnt_filter_thread_gone(t);
	fnt_shadow_release(t);
	t->state = FNT_T_ENDED;
	t->busy = 0;
}
