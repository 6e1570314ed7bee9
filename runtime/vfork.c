/*
 * vfork.c - vfork children are traced, each into a file of its own.
 *
 * A vfork child runs on its parent's memory and thread-local storage until
 * it execs or exits, while the parent thread waits in the kernel; the
 * parent's other threads go on running.  So the child may use the parent
 * thread's state (fnt_self), which nothing else touches meanwhile, but no
 * process-wide state of the runtime: the trace file, its meta stream, the
 * spares and the drained ring belong to those other threads.  The vfork
 * wrapper (arch/x86_64/vfork.S) calls, in order:
 *  - fnt_vfork_prepare, in the parent before the system call: block the
 *    thread's signals, save its state in a fresh save area;
 *  - fnt_vfork_child, in the child: a fresh thread state that writes a
 *    trace file of its own, <child pid>-N.fnt, opened at its first event
 *    (runtime.c: child_file_open, which also copies in the module map, as
 *    for a forked child), at the call depth of its parent; then the
 *    signal mask back as the program had it;
 *  - fnt_vfork_resume, in the parent once the child is gone (or vfork
 *    failed): unmap what the child mapped into the shared address space,
 *    put the saved state back, unblock the signals.
 * The parent thread's signals stay blocked from the save to the restore, so
 * no handler of the parent's runs on the child's state, and a signal that
 * arrives meanwhile is delivered when vfork returns, as it would be
 * untraced.  (pthread_sigmask leaves glibc's own SIGCANCEL and SIGSETXID
 * alone: their handlers run no traced code.)
 *
 * Under -pg -mfentry the child shares the shadow stack's array: it pushes
 * its frames above its parent's top, and the parent's entries stay intact
 * as long as the child does not return from the function that called
 * vfork, which POSIX forbids anyway.
 *
 * Where a child cannot be given a state of its own (not recording, a vfork
 * from a vfork child, a clone child already sharing this TLS, no memory for
 * the save area), the wrapper falls back to holding the parent's guard for
 * the child (clone.c): the child's calls are counted as lost.
 */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "runtime/runtime.h"

struct fnt_vfork {
	struct fnt_thread saved;         /* the parent thread's state */
	sigset_t mask;                   /* and its signal mask */
	struct fnt_trace_file file;      /* the child's file */
};

enum { VFORK_SHARED = 0, VFORK_TRACED = 1 };

int fnt_vfork_prepare(void)
{
	struct fnt_thread *t = &fnt_self;
	struct fnt_vfork *v;
	sigset_t all;

	if (!fnt_trace_header() || t->file || t->tls_shared || t->busy)
		goto shared;
	v = mmap(NULL, sizeof(*v), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v == MAP_FAILED)
		goto shared;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &v->mask);
	memcpy(&v->saved, t, sizeof(*t));
	t->vfork = v;
	return VFORK_TRACED;
shared:
	fnt_tls_share();
	return VFORK_SHARED;
}

void fnt_vfork_child(int how)
{
	struct fnt_thread *t = &fnt_self;
	struct fnt_vfork *v = t->vfork;

	if (how != VFORK_TRACED)
		return;                 /* the guard is held for us: nothing recorded */
	const struct fnt_thread *p = &v->saved;
	memset(t, 0, sizeof(*t));
	/* what describes the stack the child goes on with */
	t->depth = p->depth;
	t->flt = p->flt;
	t->flt.tframes = NULL;          /* -t positions are in the parent's chunks */
	memcpy(t->jmp, p->jmp, sizeof(t->jmp));
	t->jmp_next = p->jmp_next;
	t->ss = p->ss;
	t->ss_top = p->ss_top;
	t->ss_cap = p->ss_cap;
	t->ss_restored = p->ss_restored;
	memset(&v->file, 0, sizeof(v->file));
	v->file.fd = -1;
	v->file.pid = (uint32_t)getpid();
	t->pid = v->file.pid;
	t->file = &v->file;
	t->vfork = v;
	pthread_sigmask(SIG_SETMASK, &v->mask, NULL);
}

void fnt_vfork_resume(int how)
{
	struct fnt_thread *t = &fnt_self;
	struct fnt_vfork *v = t->vfork;
	sigset_t mask;

	if (how != VFORK_TRACED) {
		fnt_tls_unshare();
		return;
	}
	/* the child's mappings are in this address space: its chunk, its
	 * file header and meta chunk, a shadow stack or -t frames of its own */
	if (t->file == &v->file) {
		struct fnt_trace_file *f = &v->file;
		size_t chunk = f->hdr ? f->hdr->chunk_size : 0;
		if (t->chunk && chunk)
			munmap(t->chunk, chunk);
		if (f->meta_chunk && chunk)
			munmap(f->meta_chunk, chunk);
		if (f->hdr)
			munmap(f->hdr, FNT_HEADER_SIZE);
		if (t->ss && t->ss != v->saved.ss)
			munmap(t->ss, (size_t)t->ss_cap * sizeof(struct fnt_shadow_entry));
		if (t->flt.tframes && t->flt.tframes != v->saved.flt.tframes)
			fnt_filter_thread_exit(t);
	}
	memcpy(t, &v->saved, sizeof(*t));
	mask = v->mask;
	munmap(v, sizeof(*v));
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
}
