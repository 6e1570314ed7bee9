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
 *    (tracefile.c: child_file_open, which also copies in the module map, as
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
 *
 * A hand-made vfork (clone(CLONE_VM|CLONE_VFORK) by a `syscall`
 * instruction) passes by the wrapper: its child is found at its first
 * event (coro.c, fnt_foreign_event), and is lent its parent's state the
 * same way (fnt_vfork_adopt) if the kernel confirms that the parent thread
 * waits in that clone until the child execs or exits.  No wrapper runs
 * when the parent resumes, so the child's state keeps the stack window
 * empty and a shadow stack of its own: the parent's first event or return
 * then meets the rare path, which gives it its state back (fnt_vfork_lent).
 * Meanwhile the parent's -pg frames have their real return addresses, so
 * that a child returning from the function that cloned it never runs the
 * return trampoline over the frames its parent resumes in
 * (fnt_shadow_unswap); the parent gets the trampoline back, and the exits
 * of the frames it left meanwhile, at that first event.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "runtime/runtime.h"

struct fnt_vfork {
	struct fnt_thread saved;         /* the parent thread's state */
	sigset_t mask;                   /* and its signal mask */
	struct fnt_trace_file file;      /* the child's file */
	int adopted;                     /* lent to a hand-made vfork's child (no wrapper) */
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

/* the child's state, from its parent's saved in v */
static void child_state(struct fnt_thread *t, struct fnt_vfork *v)
{
	const struct fnt_thread *p = &v->saved;
	memset(t, 0, sizeof(*t));
	/* what describes the stack the child goes on with */
	t->depth = p->depth;
	t->flt = p->flt;
	t->flt.tframes = NULL;          /* -t positions are in the parent's chunks */
	fnt_filter_vfork_child(&t->flt);  /* -H bits of its own: the parent's stay as they are */
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
	/* named now: the thread id in the descriptor of the thread whose TLS
	 * it shares is its parent's (fnt_tls_owner), and fnt_vfork_lent tells
	 * the child from its parent by it */
	t->tid = fnt_gettid();
	t->file = &v->file;
	t->vfork = v;
}

void fnt_vfork_child(int how)
{
	struct fnt_thread *t = &fnt_self;
	struct fnt_vfork *v = t->vfork;

	if (how != VFORK_TRACED)
		return;                 /* the guard is held for us: nothing recorded */
	child_state(t, v);
	pthread_sigmask(SIG_SETMASK, &v->mask, NULL);
}

/* the parent thread is back: unmap what the child mapped, put its state back */
static void give_back(struct fnt_thread *t, struct fnt_vfork *v)
{
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
		fnt_filter_vfork_done(&t->flt, &v->saved.flt);
	}
	memcpy(t, &v->saved, sizeof(*t));
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
	give_back(t, v);
	mask = v->mask;
	munmap(v, sizeof(*v));
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
}

/* The system calls here are made by instruction (fnt_sys3): libc's would
 * set errno, which the child shares with its parent. */

#define VFORK_SETTLE_NS 20000000ull     /* how long a parent shown running is read again */

/* Is thread tid of process pid waiting in a clone or clone3 with
 * CLONE_VM|CLONE_VFORK and without CLONE_THREAD, that is, until its child
 * execs or exits?  The kernel says so in /proc/PID/task/TID/syscall (the
 * system call and its arguments, while the thread is blocked in it), which
 * the child may read where ptrace rules let a process inspect its parent;
 * else no. */
static int parent_in_vfork(uint32_t pid, uint32_t tid)
{
	char path[64], buf[256];
	long fd, n;
	unsigned long nr, a0, a1, flags;
	uint64_t t0 = 0;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/syscall", pid, tid);
	fd = fnt_sys3(SYS_open, (long)path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
	if (fd < 0)
		return 0;
	/* The kernel wakes the child before the parent goes to sleep in the
	 * clone: a child that starts on another CPU at once can read the
	 * parent as "running" for a few microseconds, or longer when the
	 * parent is preempted there (seen on a loaded machine: the child's
	 * 2,001 events were counted as lost).  A parent shown running is read
	 * again, the CPU yielded between reads, for up to 20 ms; one shown in
	 * any system call is an answer at once.  (A CLONE_VM child beside a
	 * parent that runs on pays that once, at its first event.) */
	for (;;) {
		n = fnt_sys6(SYS_pread64, fd, (long)buf, sizeof(buf) - 1, 0, 0, 0);
		if (n <= 0 || memcmp(buf, "running", 7))
			break;
		uint64_t now = fnt_mono_ns();
		if (!t0)
			t0 = now;
		else if (now - t0 >= VFORK_SETTLE_NS)
			break;
		fnt_sys3(SYS_sched_yield, 0, 0, 0);
	}
	fnt_sys3(SYS_close, fd, 0, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (sscanf(buf, "%lu %lx %lx", &nr, &a0, &a1) != 3)
		return 0;
	if (nr == SYS_clone)
		flags = a0;
	else if (nr == SYS_clone3 && a0 && a1 >= 8)
		flags = *(const uint64_t *)a0;   /* struct clone_args, in the memory we share */
	else
		return 0;
	return (flags & (CLONE_VM | CLONE_VFORK | CLONE_THREAD)) == (CLONE_VM | CLONE_VFORK);
}

/* In a context that is not the thread whose state it runs on, at its first
 * event (guard held, nothing written): if it is a hand-made vfork's child,
 * lend it the state as fnt_vfork_child does, and return 1: its events go
 * to a file of its own from this one on.  0: it cannot be lent (the caller
 * counts its events as lost).  unenter: the event is an entry the
 * record-time filters already counted, which the parent's saved state
 * must not keep. */
int fnt_vfork_adopt(struct fnt_thread *t, int unenter)
{
	struct fnt_vfork *v;
	uint32_t pid = (uint32_t)fnt_sys3(SYS_getpid, 0, 0, 0);
	/* (a thread whose events the filters all left out is not registered:
	 * its process is the child's parent) */
	uint32_t parent = t->pid ? t->pid : (uint32_t)fnt_sys3(SYS_getppid, 0, 0, 0);

	if (!fnt_trace_header() || t->file || t->vfork || t->tls_shared || pid == parent ||
	    !parent_in_vfork(parent, t->tid))
		return 0;
	int e = errno;
	size_t ss_size = (size_t)t->ss_cap * sizeof(struct fnt_shadow_entry);
	void *ss = NULL;
	v = mmap(NULL, sizeof(*v), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v != MAP_FAILED && t->ss &&
	    (ss = mmap(NULL, ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED) {
		munmap(v, sizeof(*v));
		v = MAP_FAILED;
	}
	if (v == MAP_FAILED) {
		errno = e;
		return 0;
	}
	struct fnt_filter_state flt = t->flt;   /* as the child's first event left it */
	memcpy(&v->saved, t, sizeof(*t));
	v->saved.busy = 0;               /* the parent was between two events */
	v->adopted = 1;
	fnt_shadow_unswap(&v->saved);    /* the child returns from the parent's frames unseen (fentry.c) */
	child_state(t, v);
	fnt_filter_vfork_done(&t->flt, &v->saved.flt);   /* (child_state's copy: this one replaces it) */
	t->flt = flt;
	t->flt.tframes = NULL;           /* (as child_state does) */
	fnt_filter_vfork_child(&t->flt);
	if (unenter)                     /* that entry is the child's, not its parent's */
		fnt_filter_unenter(&v->saved.flt);
	t->ss = ss;                      /* a shadow stack of its own (see the top) */
	t->ss_top = 0;
	t->busy = 1;                     /* the caller's guard */
	return 1;
}

/* With a state lent to a hand-made vfork's child: 1 when the caller is
 * that child; 2 when it is the parent thread, back (its state given back
 * now, and the trampoline back in its frames: fnt_shadow_vfork_back, with
 * sp where the parent is); -1 when it is neither; 0 when no state is
 * lent. */
int fnt_vfork_lent(struct fnt_thread *t, uintptr_t sp)
{
	struct fnt_vfork *v = t->vfork;
	uint32_t tid;

	if (!v || !v->adopted || t->file != &v->file)
		return 0;
	tid = fnt_gettid();
	if (tid == t->tid)
		return 1;
	if (tid != v->saved.tid)
		return -1;
	give_back(t, v);
	munmap(v, sizeof(*v));
	fnt_shadow_vfork_back(t, sp);
	return 2;
}

/* The child's first event was the return from a frame its parent had
 * entered (it returns from the function that cloned it), which the return
 * trampoline took off the shadow stack before the child was found: that
 * frame is still the parent's.  It is left in the parent's saved state;
 * the trampoline puts its real return address back in its slot, as
 * fnt_shadow_unswap does for the others. */
void fnt_vfork_keep_frame(struct fnt_thread *t, uintptr_t slot)
{
	struct fnt_vfork *v = t->vfork;
	struct fnt_thread *p = v ? &v->saved : NULL;

	if (v && v->adopted && t->file == &v->file && p->ss && p->ss_top < p->ss_cap && p->ss[p->ss_top].slot == slot)
		p->ss_top++;
}
