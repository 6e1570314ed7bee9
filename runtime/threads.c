/*
 * threads.c - a thread's life in the trace: registered at its first written
 * event (a serial, a THREAD meta record, the pthread key whose destructor
 * sees it exit), and its last records written when it exits.
 */
#include <dlfcn.h>
#include <pthread.h>
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

uint32_t fnt_tls_owner(void)
{
	if (owner_tid_at) {
		int32_t tid = *(const int32_t *)((const char *)pthread_self() + owner_tid_at - 1);
		if (tid > 0)
			return (uint32_t)tid;
	}
	return fnt_gettid();
}

void thread_register(struct fnt_thread *t)
{
	struct fnt_trace_file *tf = cur_file();
	struct fnt_meta_thread mt;
	/* kept: with record-time filters a thread may call setjmp and pass
	 * filtered calls before its first written event registers it */
	struct fnt_filter_state flt = t->flt;
	__typeof__(t->jmp) jmp;
	uint32_t jmp_next = t->jmp_next;
	/* the shadow stack describes the real stack: it outlives re-registration
	 * (first event, a forked child) */
	struct fnt_shadow_entry *ss = t->ss;
	uint32_t ss_top = t->ss_top, ss_cap = t->ss_cap;
	/* and so does the window of stack pointers seen on it (coro.c), which
	 * tells a clone's child from the thread at the next event */
	uintptr_t stk[6] = {t->stk_lo, t->stk_span, t->stk_min, t->stk_max, t->fgn_lo, t->fgn_hi};
	/* and which machine stack it is on, which key its own is parked
	 * under (coro.c): its coroutines' frames return through them later,
	 * in a forked child too */
	uintptr_t stk_cur = t->stk_cur;
	uint64_t stk_own = t->stk_own;
	int32_t stk_base = t->stk_base;
	uint32_t stk_runner = t->stk_runner;
	/* a vfork child: its file, and the depth it goes on at (vfork.c) */
	struct fnt_trace_file *file = t->file;
	struct fnt_vfork *vfork = t->vfork;
	int32_t depth = file ? t->depth : 0, old_depth = t->depth;

	memcpy(jmp, t->jmp, sizeof(jmp));
	memset(t, 0, sizeof(*t));
	t->file = file;
	t->vfork = vfork;
	t->depth = depth;
	t->flt = flt;
	memcpy(t->jmp, jmp, sizeof(jmp));
	t->jmp_next = jmp_next;
	t->ss = ss;
	t->ss_top = ss_top;
	t->ss_cap = ss_cap;
	t->stk_lo = stk[0];
	t->stk_span = stk[1];
	t->stk_min = stk[2];
	t->stk_max = stk[3];
	t->fgn_lo = stk[4];
	t->fgn_hi = stk[5];
	t->stk_cur = stk_cur;
	t->stk_own = stk_own;
	t->stk_base = stk_base - (old_depth - depth);   /* (as many calls open on the stack in use) */
	t->stk_runner = stk_runner;
	t->busy = 1;                    /* the caller holds the guard */
	t->pid = tf->pid;
	t->tid = fnt_gettid();
	t->serial = (uint32_t)__atomic_fetch_add(&tf->hdr->next_thread, 1, __ATOMIC_RELAXED);
	memset(&mt, 0, sizeof(mt));
	mt.ticks = fnt_now();
	mt.thread = t->serial;
	mt.tid = t->tid;
	prctl(PR_GET_NAME, mt.name, 0, 0, 0);
	fnt_meta_append(FNT_META_THREAD, &mt, sizeof(mt), NULL, 0);
	if (!t->file)           /* (a vfork child's thread is its parent's) */
		pthread_setspecific(thread_key, t);
	t->state = FNT_T_ACTIVE;
}

/* pthread key destructor: the thread is exiting. */
void thread_exit_cb(void *arg)
{
	struct fnt_thread *t = arg;
	if (t != &fnt_self)
		return;
	fnt_coro_thread_exit(t);        /* its own stack leaves the registry of parked stacks */
	if (t->state != FNT_T_ACTIVE || !t->chunk || t->busy)
		return;
	t->busy = 1;
	if (t->pos >= t->limit && thread_chunk_start(t)) {
		t->busy = 0;
		return;
	}
	put_lost(t);
	put_thread_name(t);
	put_thread_end(t);
	chunk_release(t, 1);
	fnt_filter_thread_gone(t);
	fnt_shadow_release(t);
	t->state = FNT_T_ENDED;
	t->busy = 0;
}
