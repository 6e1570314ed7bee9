/*
 * clone.c - children that pthread_atfork does not see: vfork()
 * (arch/x86_64/vfork.S) and libc's clone() wrapper.
 *
 * What a child can have traced depends on what it shares with its parent:
 *  - no memory (clone(SIGCHLD) and the like, without CLONE_SETTLS): a
 *    process like a forked one.  It gets the fork treatment (its own file,
 *    module map and thread serials): the same fork_prepare / fork_parent /
 *    fork_child steps as pthread_atfork, run around the clone.
 *  - memory, while the parent thread waits (vfork, CLONE_VM|CLONE_VFORK
 *    without CLONE_THREAD): the child may borrow its parent thread's state
 *    for that time, and is traced as a process of its own (vfork.c).
 *  - memory but no TLS of its own otherwise (CLONE_VM without
 *    CLONE_SETTLS, or when vfork.c cannot give the child a state): the
 *    child runs on its parent thread's fnt_self, which two running contexts
 *    cannot share (they would write the same buffer at once).  The parent's
 *    re-entrancy guard is held for as long as such a child may run, so
 *    neither records; their events are counted as lost in "children without
 *    TLS" (FNT_RES_LOST_UNSAFE).  A CLONE_VFORK child hands the guard back
 *    when the parent resumes; any other hands it back when its function
 *    returns, or when it execs or exits (the kernel clears a word of ours
 *    then, CLONE_CHILD_CLEARTID, which the parent's dropped events look
 *    at).  A child that asked for CLONE_CHILD_CLEARTID itself and leaves by
 *    exec or _exit never hands it back: the parent thread then records
 *    nothing more, and counts it.
 *  - memory and TLS of its own (CLONE_VM|CLONE_SETTLS, how threads are
 *    made): traced as a thread, as before; nothing to do.
 * A raw syscall(SYS_clone) or syscall(SYS_clone3) through libc's syscall()
 * is handled as the same clone would be (see syscall() below); one made by
 * hand-written assembly is found by its child's first event (below, and
 * coro.c's fnt_stack_moved and fnt_foreign_event).  The wrappers name the
 * cloning thread (its id) before the clone, so that a child of a thread
 * that has made no traced call yet is never taken for it; after a clone
 * by assembly, the thread's first event names it by the thread whose TLS
 * it runs on (threads.c, fnt_tls_owner).
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include "runtime/runtime.h"

/* a child starts sharing this thread's TLS: hold the guard for it, and
 * name the thread first (coro.c), so that the child's events are never
 * taken for the thread's when the thread has made no traced call yet */
void fnt_tls_share(void)
{
	struct fnt_thread *t = &fnt_self;
	uint32_t busy = t->busy;

	if (!t->tid)
		t->tid = fnt_gettid();
	t->busy = FNT_BUSY_RUNTIME;
	if (__atomic_fetch_add(&t->tls_shared, 1, __ATOMIC_ACQ_REL) == 0)
		t->tls_busy = busy;
}

/* it stopped (it exec'd, exited, or its function returned) */
void fnt_tls_unshare(void)
{
	struct fnt_thread *t = &fnt_self;

	if (__atomic_sub_fetch(&t->tls_shared, 1, __ATOMIC_ACQ_REL) == 0)
		t->busy = t->tls_busy;
}

/* An event was dropped while the guard is held for a child: if the child
 * we watch is gone (exec or exit), this is the parent, and the guard is its
 * own again from the next event on. */
void fnt_tls_check(struct fnt_thread *t)
{
	uint32_t *w = __atomic_load_n(&t->tls_word, __ATOMIC_ACQUIRE);

	if (w && !__atomic_load_n(w, __ATOMIC_ACQUIRE) &&
	    __atomic_compare_exchange_n(&t->tls_word, &w, NULL, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		fnt_tls_unshare();
}

/* A clone made by a hand-written `syscall` instruction passes by every
 * wrapper.  Without CLONE_VM its child is a copy of the process whose
 * chunks are still the parent's file (shared mappings): its first event
 * must not be written there.  The hooks' stack check ANDs its bound with a
 * word of a page marked MADV_WIPEONFORK, which the kernel gives the child
 * as zeros: the child's first event takes the rare path, which gives the
 * process the fork treatment, then sets the word again.  (A fork() or a
 * wrapped clone sets it again in fork_child.)  A child with CLONE_VM shares
 * the page; coro.c finds it by its stack instead. */
uint64_t fnt_fork_page[512] __attribute__((aligned(4096))) FNT_HIDDEN;
static int fork_armed;               /* the page is wiped in children */

void fnt_fork_mask_init(void)
{
	if (!fork_armed && !fnt_denied(SYS_madvise) && !madvise(fnt_fork_page, sizeof(fnt_fork_page), MADV_WIPEONFORK))
		fork_armed = 1;
	__atomic_store_n(&fnt_fork_mask, ~0ull, __ATOMIC_RELAXED);
}

int fnt_raw_fork_check(void)
{
	if (!fork_armed)
		return 0;               /* not started yet (or no MADV_WIPEONFORK): nothing to tell */
	fnt_fork_mask = ~0ull;
	fnt_raw_fork_child();
	return 1;
}

#ifndef FNT_STATIC_ARCHIVE
/* Words the kernel clears when a child on a shared TLS execs or exits
 * (CLONE_CHILD_CLEARTID): 0 free, else the child may still run.  Static,
 * so that they outlive the thread whose TLS the child shared. */
#define CHILD_WORDS 128
static uint32_t child_words[CHILD_WORDS];

static uint32_t *child_word(void)
{
	for (unsigned i = 0; i < CHILD_WORDS; i++) {
		uint32_t zero = 0;
		if (__atomic_compare_exchange_n(&child_words[i], &zero, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return &child_words[i];
	}
	return NULL;
}

/* at the top of the child's stack: what the child runs, and how */
struct clone_start {
	int (*fn)(void *);
	void *arg;
	int how;
	int vfork;               /* CLONE_AS_VFORK: what fnt_vfork_prepare said */
};
enum { CLONE_AS_FORK = 1, CLONE_SHARED_TLS = 2, CLONE_AS_VFORK = 3 };

static int clone_child(void *p)
{
	struct clone_start *s = p;
	int (*fn)(void *) = s->fn, how = s->how, ret;
	void *arg = s->arg;

	if (how == CLONE_AS_FORK)
		fnt_fork_child();
	else if (how == CLONE_AS_VFORK)
		fnt_vfork_child(s->vfork);
	ret = fn(arg);
	if (how == CLONE_SHARED_TLS) {
		struct fnt_thread *t = &fnt_self;
		uint32_t *w = __atomic_load_n(&t->tls_word, __ATOMIC_ACQUIRE);
		/* hand the guard back once: here, or in the parent when the
		 * kernel clears the word; whoever takes the word does it */
		if (!w || __atomic_compare_exchange_n(&t->tls_word, &w, NULL, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			fnt_tls_unshare();
	}
	return ret;
}

typedef int clone_func(int (*)(void *), void *, int, void *, ...);

FNT_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	static clone_func *real;
	clone_func *f = __atomic_load_n(&real, __ATOMIC_RELAXED);
	struct clone_start *s;
	pid_t *ptid, *ctid;
	void *tls;
	va_list ap;
	int ret;

	/* libc reads these three whatever the flags say; so do we */
	va_start(ap, arg);
	ptid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if (!f) {
		f = (clone_func *)dlsym(RTLD_NEXT, "clone");
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	if (!f)
		return -1;
	if (!fn || !stack || (flags & CLONE_SETTLS))
		return f(fn, stack, flags, arg, ptid, tls, ctid);
	s = (struct clone_start *)(((uintptr_t)stack - sizeof(*s)) & ~(uintptr_t)15);
	s->fn = fn;
	s->arg = arg;
	if (!(flags & CLONE_VM)) {
		s->how = CLONE_AS_FORK;
		fnt_fork_prepare();
		ret = f(clone_child, s, flags, s, ptid, tls, ctid);
		fnt_fork_parent();
		return ret;
	}
	if ((flags & CLONE_VFORK) && !(flags & CLONE_THREAD)) {
		/* a hand-made spawn: the parent thread waits until the child
		 * execs or exits, as for vfork (vfork.c) */
		int how = fnt_vfork_prepare();
		s->how = CLONE_AS_VFORK;
		s->vfork = how;
		ret = f(clone_child, s, flags, s, ptid, tls, ctid);
		fnt_vfork_resume(how);
		return ret;
	}
	s->how = (flags & CLONE_VFORK) ? 0 : CLONE_SHARED_TLS;
	fnt_tls_share();
	if (s->how == CLONE_SHARED_TLS && !(flags & CLONE_CHILD_CLEARTID) && !fnt_self.tls_word &&
	    (fnt_self.tls_word = child_word()) != NULL) {
		/* tell us when it execs or exits: the kernel clears the word */
		ret = f(clone_child, s, flags | CLONE_CHILD_CLEARTID, s, ptid, tls, fnt_self.tls_word);
		if (ret < 0) {
			__atomic_store_n(fnt_self.tls_word, 0, __ATOMIC_RELEASE);
			fnt_self.tls_word = NULL;
		}
	} else {
		ret = f(clone_child, s, flags, s, ptid, tls, ctid);
	}
	if (ret < 0 || (flags & CLONE_VFORK))
		fnt_tls_unshare();
	return ret;
}

/* syscall(SYS_clone, ...) and syscall(SYS_clone3, ...) through libc's
 * syscall(): the child returns from it on the stack it was called from, so
 * only a child without memory of its own that keeps that stack is possible
 * this way (the fork-like clone(SIGCHLD), clone3 with no stack).  It gets
 * the fork treatment, as clone() gives it.  A vfork-like one (CLONE_VM |
 * CLONE_VFORK, same stack) runs on its parent's TLS: the guard is held for
 * it until the parent resumes.  Any other call passes through untouched. */
typedef long syscall_func(long, ...);

struct fnt_clone_args {          /* struct clone_args, the fields read here */
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

FNT_EXPORT long syscall(long n, ...)
{
	static syscall_func *real;
	syscall_func *f = __atomic_load_n(&real, __ATOMIC_RELAXED);
	long a[6];
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!f) {
		f = (syscall_func *)dlsym(RTLD_NEXT, "syscall");
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	if (!f)
		return -1;
	uint64_t flags = 0;
	int stack = 1;
	if (n == SYS_exit_group)
		fnt_exit_note((int)a[0], FNT_END_HOW_GROUP);
	/* the clock and seccomp strict mode, as the prctl wrapper (filter.c)
	 * sees them: before the call takes effect, undone if it fails */
	if (n == SYS_prctl || n == SYS_seccomp) {
		int option = n == SYS_prctl ? (int)a[0] : a[0] == SECCOMP_SET_MODE_STRICT ? PR_SET_SECCOMP : -1;
		unsigned long arg = n == SYS_prctl ? (unsigned long)a[1] : SECCOMP_MODE_STRICT;
		if (n == SYS_prctl)
			fnt_sandbox_prctl((int)a[0], (unsigned long)a[1], (unsigned long)a[2]);
		else
			fnt_sandbox_seccomp((unsigned long)a[0], (unsigned long)a[2]);
		fnt_clock_prctl(option, arg);
		long r = f(n, a[0], a[1], a[2], a[3], a[4], a[5]);
		fnt_sandbox_done(n == SYS_prctl ? r == 0 : fnt_sandbox_seccomp_ok((unsigned long)a[1], r));
		fnt_clock_prctl_done(option, arg, r);
		if (option == PR_SET_NAME)      /* (--no-thread looks at the name again) */
			__atomic_fetch_add(&fnt_name_gen, 1, __ATOMIC_RELAXED);
		return r;
	}
	if (n == SYS_clone) {
		flags = (uint64_t)a[0];
		stack = a[1] != 0;
	} else if (n == SYS_clone3 && a[0] && (unsigned long)a[1] >= sizeof(struct fnt_clone_args)) {
		const struct fnt_clone_args *ca = (const struct fnt_clone_args *)a[0];
		flags = ca->flags;
		stack = ca->stack != 0;
	} else {
		return f(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	}
	if (stack || (flags & (CLONE_SETTLS | CLONE_THREAD)))
		return f(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (!(flags & CLONE_VM)) {
		fnt_fork_prepare();
		long ret = f(n, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (ret == 0)
			fnt_fork_child();
		else
			fnt_fork_parent();
		return ret;
	}
	if (!(flags & CLONE_VFORK))
		return f(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	fnt_tls_share();
	/* the child returns from here on the caller's stack, where the
	 * caller's frames may have their return addresses swapped for the
	 * return trampoline (-pg, patchable entries, or this very call as a
	 * traced library call): running the trampoline there would overwrite
	 * the frames the parent resumes in.  They get their real ones back
	 * while the child may run, as for a hand-made vfork (fentry.c). */
	fnt_shadow_unswap(&fnt_self);
	long ret = f(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (ret != 0) {                 /* the parent, resumed (or the call failed) */
		fnt_shadow_reswap(&fnt_self, (uintptr_t)__builtin_frame_address(0));
		fnt_tls_unshare();
	}
	return ret;
}
#endif
