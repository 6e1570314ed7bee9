/*
 * backtrace.c - what a -pg -mfentry (or patchable) program sees of its own
 * stack.  The return addresses of traced frames are swapped for the return
 * trampoline (runtime/fentry.c), so an unwinder walking the stack would
 * find trampoline frames, or stop there.  backtrace() and
 * _Unwind_Backtrace are wrapped: the real return addresses go back into
 * their slots for the walk (from the shadow stack, as for an exception) and
 * the trampoline afterwards, so the program gets its untraced frames.
 * The wrappers leave their own two frames out of what they report.
 */
#include <dlfcn.h>
#include <unwind.h>
#include "runtime/runtime.h"

#ifndef FNT_STATIC_ARCHIVE

void fnt_return_trampoline(void) FNT_HIDDEN;

/* put the real return addresses back, innermost first (a slot shared by a
 * tail call and its caller ends with the outer one's) */
static void unswap(struct fnt_thread *t)
{
	for (uint32_t i = t->ss_top; i-- > 0;) {
		uintptr_t *slot = (uintptr_t *)t->ss[i].slot;
		if (*slot == (uintptr_t)fnt_return_trampoline)
			*slot = t->ss[i].ret;
	}
}

static void reswap(struct fnt_thread *t)
{
	for (uint32_t i = 0; i < t->ss_top; i++) {
		uintptr_t *slot = (uintptr_t *)t->ss[i].slot;
		if (*slot == t->ss[i].ret)
			*slot = (uintptr_t)fnt_return_trampoline;
	}
}

typedef _Unwind_Reason_Code (*walk_fn)(_Unwind_Trace_Fn, void *);
static void *real_walk;

static walk_fn walker(void)
{
	void *f = __atomic_load_n(&real_walk, __ATOMIC_RELAXED);
	if (!f) {
		f = dlsym(RTLD_NEXT, "_Unwind_Backtrace");
		__atomic_store_n(&real_walk, f, __ATOMIC_RELAXED);
	}
	return (walk_fn)f;
}

struct walk {
	_Unwind_Trace_Fn fn;     /* the program's callback (_Unwind_Backtrace) */
	void *arg;
	void **buf;              /* or backtrace()'s array */
	int size, n, skip;
};

static _Unwind_Reason_Code on_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	if (w->skip) {           /* walk_real and the wrapper */
		w->skip--;
		return _URC_NO_REASON;
	}
	if (w->fn)
		return w->fn(ctx, w->arg);
	if (w->n >= w->size)
		return _URC_END_OF_STACK;
	w->buf[w->n++] = (void *)_Unwind_GetIP(ctx);
	return _URC_NO_REASON;
}

static __attribute__((noinline)) _Unwind_Reason_Code walk_real(struct walk *w)
{
	struct fnt_thread *t = &fnt_self;
	walk_fn f = walker();
	_Unwind_Reason_Code rc;
	if (!f)
		return _URC_END_OF_STACK;
	uint32_t held = t->busy;    /* a signal handler inside a hook: the shadow stack may be mid-change */
	if (!held)
		unswap(t);
	rc = f(on_frame, w);
	if (!held)
		reswap(t);
	return rc;
}

FNT_EXPORT __attribute__((noinline)) _Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn fn, void *arg)
{
	struct walk w = { .fn = fn, .arg = arg, .skip = 2 };
	_Unwind_Reason_Code rc = walk_real(&w);
	__asm__ volatile("" ::: "memory");   /* no tail call: this frame is one of the two skipped */
	return rc;
}

FNT_EXPORT __attribute__((noinline)) int backtrace(void **buf, int size)
{
	struct walk w = { .buf = buf, .size = size, .skip = 2 };
	if (size <= 0)
		return 0;
	walk_real(&w);
	/* like glibc: no trailing null address */
	if (w.n > 1 && !w.buf[w.n - 1])
		w.n--;
	__asm__ volatile("" ::: "memory");
	return w.n;
}

#endif
