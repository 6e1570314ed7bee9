/*
 * clone.c - children that pthread_atfork does not see: vfork()
 * (arch/x86_64/vfork.S) and libc's clone() wrapper.
 *
 * What a child can have traced depends on what it shares with its parent:
 *  - no memory (clone(SIGCHLD) and the like, without CLONE_SETTLS): a
 *    process like a forked one.  It gets the fork treatment (its own file,
 *    module map and thread serials): the same fork_prepare / fork_parent /
 *    fork_child steps as pthread_atfork, run around the clone.
 *  - memory but no TLS of its own (vfork, CLONE_VM without CLONE_SETTLS):
 *    the child runs on its parent thread's fnt_self, which two contexts
 *    cannot share (they would write the same buffer at once).  The parent's
 *    re-entrancy guard is held for as long as such a child may run, so
 *    neither records; their events are counted as lost in "children without
 *    TLS" (FNT_RES_LOST_UNSAFE).  A vfork child or a CLONE_VFORK child hands
 *    the guard back when the parent resumes; any other hands it back when
 *    its function returns (one that leaves by _exit never does: the parent
 *    thread then records nothing more, and counts it).
 *  - memory and TLS of its own (CLONE_VM|CLONE_SETTLS, how threads are
 *    made): traced as a thread, as before; nothing to do.
 * A raw syscall(SYS_clone) passes by all of this and is not supported.
 */
#ifndef FNT_STATIC_ARCHIVE
#include <dlfcn.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include "runtime/runtime.h"

void fnt_tls_share(void) FNT_HIDDEN;
void fnt_tls_unshare(void) FNT_HIDDEN;

/* a child starts sharing this thread's TLS: hold the guard for it */
void fnt_tls_share(void)
{
	struct fnt_thread *t = &fnt_self;
	uint32_t busy = t->busy;

	t->busy = 1;
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

/* at the top of the child's stack: what the child runs, and how */
struct clone_start {
	int (*fn)(void *);
	void *arg;
	int how;
};
enum { CLONE_AS_FORK = 1, CLONE_SHARED_TLS = 2 };

static int clone_child(void *p)
{
	struct clone_start *s = p;
	int (*fn)(void *) = s->fn, how = s->how, ret;
	void *arg = s->arg;

	if (how == CLONE_AS_FORK)
		fnt_fork_child();
	ret = fn(arg);
	if (how == CLONE_SHARED_TLS)
		fnt_tls_unshare();
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
	s->how = (flags & CLONE_VFORK) ? 0 : CLONE_SHARED_TLS;
	fnt_tls_share();
	ret = f(clone_child, s, flags, s, ptid, tls, ctid);
	if (ret < 0 || (flags & CLONE_VFORK))
		fnt_tls_unshare();
	return ret;
}
#endif
