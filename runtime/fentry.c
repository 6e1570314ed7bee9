/*
 * fentry.c - the C side of the -pg -mfentry trampolines (arch/x86_64/fentry.S):
 * entry events with their argument payload, exits through swapped return
 * addresses with the return value, and the per-thread shadow stack that
 * keeps the real return addresses.
 *
 * Invariants:
 * - A frame is on the shadow stack iff its entry was recorded and its
 *   return address swapped; so the trace never has an exit without its
 *   entry.  When an entry cannot be recorded (guard held by a signal
 *   handler, shadow stack full, recording off) the call is simply not
 *   traced: not swapped, nothing written.
 * - Entries whose stack slot lies below the current return's slot belong
 *   to frames that were left without returning (longjmp out of a signal
 *   handler, an exception caught in untraced code): the return trampoline
 *   pops them first and records them as unwound.
 * - C++ exceptions: the unwinder reads return addresses from the stack, so
 *   fnt_unwind_begin puts every real one back before it walks, and
 *   fnt_unwind_caught (from __cxa_begin_catch) records the frames the
 *   exception left as unwound and swaps the survivors again.
 * Only the owning thread touches its shadow stack (signal handlers on it
 * nest properly or longjmp away, which the two rules above cover).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "fntrace.h"
#include "format/argspec.h"
#include "runtime/event.h"

#ifdef FNT_STATIC_ARCHIVE
/* the trampolines are assembly the archive leaves out (see the Makefile) */
void fnt_shadow_release(struct fnt_thread *t)
{
	(void)t;
}
#else

struct fnt_regs {
	uint64_t gp[9];          /* rdi rsi rdx rcx r8 r9 rax r10 r11 */
	uint64_t pad;
	uint64_t xmm[16][2];
};
_Static_assert(sizeof(struct fnt_regs) == 336, "fentry.S frame is 336 bytes");

void fnt_return_trampoline(void) FNT_HIDDEN;
void fnt_fentry_enter(struct fnt_regs *r, uintptr_t ret_in_fn, uintptr_t *slot) FNT_HIDDEN;
uintptr_t fnt_fentry_exit(struct fnt_regs *r, uintptr_t sp) FNT_HIDDEN;
void *fnt_unwind_begin(int which, uintptr_t sp) FNT_HIDDEN;
void *fnt_unwind_caught(int which, uintptr_t sp) FNT_HIDDEN;

#define SS_DEFAULT_CAP 65536u

static uint32_t ss_cap_wanted;

static int shadow_alloc(struct fnt_thread *t)
{
	if (!ss_cap_wanted) {
		const char *env = getenv(FNTRACE_ENV_SHADOW_DEPTH);
		unsigned long v = env && *env ? strtoul(env, NULL, 0) : 0;
		ss_cap_wanted = v >= 16 && v <= (1ul << 22) ? (uint32_t)v : SS_DEFAULT_CAP;
	}
	void *m = mmap(NULL, (size_t)ss_cap_wanted * sizeof(struct fnt_shadow_entry), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	t->ss = m;
	t->ss_cap = ss_cap_wanted;
	t->ss_top = 0;
	return 0;
}

void fnt_shadow_release(struct fnt_thread *t)
{
	if (t->ss && !t->ss_top) {
		munmap(t->ss, (size_t)t->ss_cap * sizeof(struct fnt_shadow_entry));
		t->ss = NULL;
		t->ss_cap = 0;
	}
}

/* The function's first byte, from the address just past its __fentry__
 * call: a 5-byte direct call (clang, gcc -fno-plt off) or a 6-byte call
 * through the GOT (gcc's default), after an endbr64 if there is one. */
static inline uintptr_t fentry_fn(uintptr_t ret)
{
	const uint8_t *p = (const uint8_t *)ret;
	uintptr_t fn = (p[-6] == 0xff && p[-5] == 0x15) ? ret - 6 : ret - 5;
	const uint8_t *e = (const uint8_t *)fn - 4;
	if (e[0] == 0xf3 && e[1] == 0x0f && e[2] == 0x1e && e[3] == 0xfa)
		fn -= 4;
	return fn;
}

/* Copy a C string without ever faulting: process_vm_readv on ourselves
 * fails (or stops short) where the memory is not readable. */
static uint8_t *put_string(uint8_t *p, uintptr_t ptr)
{
	char buf[FNT_ARG_STR_MAX];
	if (!ptr) {
		*p++ = FNT_STR_NULL;
		return p;
	}
	struct iovec local = { buf, sizeof(buf) }, remote = { (void *)ptr, sizeof(buf) };
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (n <= 0 && ((ptr & 4095) + sizeof(buf) > 4096)) {
		/* the copy may cross into an unreadable page: read up to it */
		remote.iov_len = local.iov_len = 4096 - (ptr & 4095);
		n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	}
	if (n <= 0) {
		*p++ = FNT_STR_BAD;
		memcpy(p, &ptr, 8);
		return p + 8;
	}
	size_t len = strnlen(buf, (size_t)n);
	*p++ = len == (size_t)n ? FNT_STR_CUT : FNT_STR_OK;
	*p++ = (uint8_t)len;
	memcpy(p, buf, len);
	return p + len;
}

static uint8_t *put_item(uint8_t *p, const struct fnt_arg_item *it, uint64_t v)
{
	if (it->fmt == FNT_FMT_STRUCT)
		return p;
	if (it->fmt == FNT_FMT_STR)
		return put_string(p, (uintptr_t)v);
	memcpy(p, &v, 8);
	return p + 8;
}

static size_t args_payload(uint8_t *buf, const struct fnt_argspec *spec, const struct fnt_regs *r,
			   const uintptr_t *slot)
{
	static const uint8_t gp_of_arg[6] = { 0, 1, 2, 3, 4, 5 };
	uint8_t *p = buf;
	for (unsigned i = 0; i < spec->n; i++) {
		const struct fnt_arg_item *it = &spec->item[i];
		uint64_t v;
		if (it->src == FNT_SRC_RET)
			continue;
		if (it->src == FNT_SRC_FP)
			v = r->xmm[it->index][0];
		else if (it->index < 6)
			v = r->gp[gp_of_arg[it->index]];
		else
			v = slot[1 + it->index - 6];   /* stack arguments sit above the return address */
		p = put_item(p, it, v);
	}
	return (size_t)(p - buf);
}

static size_t ret_payload(uint8_t *buf, const struct fnt_argspec *spec, const struct fnt_regs *r)
{
	uint8_t *p = buf;
	for (unsigned i = 0; i < spec->n; i++) {
		const struct fnt_arg_item *it = &spec->item[i];
		if (it->src != FNT_SRC_RET)
			continue;
		p = put_item(p, it, it->fmt == FNT_FMT_FLOAT ? r->xmm[0][0] : r->gp[6]);
	}
	return (size_t)(p - buf);
}

void fnt_fentry_enter(struct fnt_regs *r, uintptr_t ret_in_fn, uintptr_t *slot)
{
	struct fnt_thread *t = &fnt_self;
	uintptr_t fn = fentry_fn(ret_in_fn);
	const struct fnt_argspec *spec = NULL;
	int32_t depth;

	if (unlikely(!t->ss || t->ss_top == t->ss_cap)) {
		if (t->busy)
			return;
		if (!t->ss) {
			if (shadow_alloc(t))
				return;
		} else {
			t->lost++;      /* deeper than the shadow stack: not traced */
			return;
		}
	}
	if (unlikely(fnt_filtering)) {
		/* record-time filters: every call the filters see goes on the
		 * shadow stack, written or not, so that its return reaches them
		 * too (the same entry/exit pairs as the -finstrument-functions
		 * hooks); only the written ones get an exit event */
		uintptr_t written = 0;
		if (t->busy)
			return;
		t->busy = 1;
		barrier();
		if (!fnt_gate_skip(t, fn, 0)) {
			depth = t->depth;
			if (unlikely(fnt_argspec_count) && (spec = fnt_argspec_find(fn)) != NULL) {
				uint8_t buf[FNT_ARGS_MAX * (2 + FNT_ARG_STR_MAX)];
				size_t len = args_payload(buf, spec, r, slot);
				fnt_event_ext(t, fn, 0, FNT_EXT_ARGS, buf, len);
			} else {
				fnt_event_write(t, fn, 0, 0);   /* releases the guard */
				t->busy = 1;
				barrier();
			}
			written = t->depth != depth;
		}
		struct fnt_shadow_entry *e = &t->ss[t->ss_top];
		e->ret = *slot;
		e->slot = (uintptr_t)slot;
		e->fn = fn;
		e->spec = written ? spec : NULL;
		e->written = written;
		t->ss_top++;
		*slot = (uintptr_t)fnt_return_trampoline;
		barrier();
		t->busy = 0;
		return;
	}
	if (unlikely(fnt_argspec_count) && (spec = fnt_argspec_find(fn)) != NULL) {
		uint8_t buf[FNT_ARGS_MAX * (2 + FNT_ARG_STR_MAX)];
		size_t len;
		if (t->busy)
			return;
		len = args_payload(buf, spec, r, slot);
		t->busy = 1;
		__asm__ volatile("" ::: "memory");
		int rc = fnt_event_ext(t, fn, 0, FNT_EXT_ARGS, buf, len);
		__asm__ volatile("" ::: "memory");
		t->busy = 0;
		if (rc)
			return;
	} else {
		depth = t->depth;
		fnt_event(fn, 0, 0);
		if (t->depth == depth)       /* not recorded: leave the call alone */
			return;
		if (unlikely(fnt_argspec_count) && (spec = fnt_argspec_find(fn)) != NULL) {
			/* the first event started the runtime and loaded the specs */
			uint8_t buf[FNT_ARGS_MAX * (2 + FNT_ARG_STR_MAX)];
			size_t len = args_payload(buf, spec, r, slot);
			if (!t->busy) {
				t->busy = 1;
				__asm__ volatile("" ::: "memory");
				fnt_put_ext(t, FNT_EXT_ARGS, buf, len);
				__asm__ volatile("" ::: "memory");
				t->busy = 0;
			}
		}
	}
	/* the push, under the guard: a signal handler landing between filling
	 * the entry and counting it would push its own calls over it */
	if (t->busy)
		return;         /* (cannot happen: nothing above leaves it held) */
	t->busy = 1;
	__asm__ volatile("" ::: "memory");
	struct fnt_shadow_entry *e = &t->ss[t->ss_top];
	e->ret = *slot;
	e->slot = (uintptr_t)slot;
	e->fn = fn;
	e->spec = spec;
	e->written = 1;
	t->ss_top++;
	*slot = (uintptr_t)fnt_return_trampoline;
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

/* Drop the entries of frames below sp (left without returning), recording
 * them as unwound.  Returns how many. */
/* Pop the frames from index j up, recording the written ones as unwound;
 * the record-time filters leave them too. */
static void shadow_drop(struct fnt_thread *t, uint32_t j)
{
	uint32_t n = 0, all = t->ss_top - j;
	for (uint32_t i = j; i < t->ss_top; i++)
		n += t->ss[i].written != 0;
	t->ss_top = j;
	if (!t->busy) {
		t->busy = 1;
		if (n)
			fnt_put_unwind(t, n);
		if (unlikely(fnt_filtering))
			fnt_filter_longjmp(t, t->flt.fdepth - (int32_t)all);
		t->busy = 0;
	}
}

static uint32_t shadow_resync(struct fnt_thread *t, uintptr_t sp)
{
	uint32_t j = t->ss_top;
	while (j > 0 && t->ss[j - 1].slot < sp)
		j--;
	uint32_t n = t->ss_top - j;
	if (n)
		shadow_drop(t, j);
	return n;
}

uintptr_t fnt_fentry_exit(struct fnt_regs *r, uintptr_t sp)
{
	struct fnt_thread *t = &fnt_self;
	uintptr_t slot = sp - 8;

	if (unlikely(!t->ss_top || t->ss[t->ss_top - 1].slot != slot)) {
		/* frames above ours were left without returning (longjmp out of a
		 * signal handler, an exception caught in untraced code): find our
		 * entry by its slot and drop the ones above it as unwound */
		uint32_t j = t->ss_top;
		while (j > 0 && t->ss[j - 1].slot != slot)
			j--;
		if (!j && fnt_coro_find_slot(t, slot))
			j = t->ss_top;   /* a coroutine returned to its uc_link: back on that stack */
		if (!j) {
			/* cannot happen: the trampoline was returned to without an
			 * entry, and there is no return address to go to */
			static const char msg[] = "fntrace: shadow stack out of sync; aborting\n";
			(void)!write(2, msg, sizeof(msg) - 1);
			abort();
		}
		shadow_resync(t, slot);          /* (drops exactly those: their slots lie below ours) */
		if (t->ss_top != j)
			/* not below ours: another stack (coroutines); drop them anyway */
			shadow_drop(t, j);
	}
	struct fnt_shadow_entry e = t->ss[t->ss_top - 1];
	t->ss_top--;
	if (unlikely(fnt_filtering)) {
		/* the filters see every return of a call they saw enter; an
		 * entry erased now (-t) took its ARGS record with it */
		if (t->busy)
			return e.ret;
		t->busy = 1;
		barrier();
		if (fnt_gate_skip(t, e.fn, 1) || !e.written) {
			barrier();
			t->busy = 0;
			return e.ret;
		}
		if (e.spec) {
			uint8_t buf[2 + FNT_ARG_STR_MAX + 16];
			size_t len = ret_payload(buf, e.spec, r);
			if (len) {
				fnt_event_ext(t, e.fn, 1, FNT_EXT_RETVAL, buf, len);
				barrier();
				t->busy = 0;
				return e.ret;
			}
		}
		fnt_event_write(t, e.fn, 0, 1);  /* releases the guard */
		return e.ret;
	}
	if (e.spec && !t->busy) {
		uint8_t buf[2 + FNT_ARG_STR_MAX + 16];
		size_t len = ret_payload(buf, e.spec, r);
		if (len) {
			t->busy = 1;
			__asm__ volatile("" ::: "memory");
			fnt_event_ext(t, e.fn, 1, FNT_EXT_RETVAL, buf, len);
			__asm__ volatile("" ::: "memory");
			t->busy = 0;
			return e.ret;
		}
	}
	fnt_event(e.fn, 0, 1);
	return e.ret;
}

/* ---- exceptions ---- */

static const char *const unwind_names[] = {
	"_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow", "_Unwind_ForcedUnwind", "_Unwind_Resume",
	"__cxa_begin_catch",
};
static void *unwind_real[5];

static void *unwind_target(int which)
{
	void *f = __atomic_load_n(&unwind_real[which], __ATOMIC_RELAXED);
	if (!f) {
		f = dlsym(RTLD_NEXT, unwind_names[which]);
		__atomic_store_n(&unwind_real[which], f, __ATOMIC_RELAXED);
	}
	return f;
}

/* An unwind starts (or resumes after a cleanup): the unwinder needs the
 * real return addresses.  Innermost first, so a slot shared by a tail call
 * and its caller ends up with the caller's real address. */
void *fnt_unwind_begin(int which, uintptr_t sp)
{
	struct fnt_thread *t = &fnt_self;
	(void)sp;
	for (uint32_t i = t->ss_top; i-- > 0;) {
		uintptr_t *slot = (uintptr_t *)t->ss[i].slot;
		if (*slot == (uintptr_t)fnt_return_trampoline)
			*slot = t->ss[i].ret;
	}
	if (t->ss_top)
		t->ss_restored = 1;
	return unwind_target(which);
}

/* A handler caught it in the frame whose %rsp is sp: the frames below are
 * gone; the ones above get their trampoline back. */
void *fnt_unwind_caught(int which, uintptr_t sp)
{
	struct fnt_thread *t = &fnt_self;
	if (t->ss_restored) {
		shadow_resync(t, sp);
		for (uint32_t i = 0; i < t->ss_top; i++) {
			uintptr_t *slot = (uintptr_t *)t->ss[i].slot;
			if (*slot == t->ss[i].ret)
				*slot = (uintptr_t)fnt_return_trampoline;
		}
		t->ss_restored = 0;
	}
	return unwind_target(which);
}

/* pthread_exit (and so a thread's cancellation cleanup in C++ or
 * -fexceptions code) unwinds with a forced unwind that glibc starts through
 * its own pointer into libgcc, past our _Unwind_ForcedUnwind stub: it would
 * stop at the first swapped return address and skip the cleanup handlers
 * above it.  So the real return addresses go back first, and the traced
 * frames are recorded as unwound here, where the thread leaves them. */
FNT_EXPORT __attribute__((noreturn)) void pthread_exit(void *retval)
{
	static void (*real)(void *);
	struct fnt_thread *t = &fnt_self;
	void (*f)(void *) = __atomic_load_n(&real, __ATOMIC_RELAXED);

	if (!f) {
		f = (void (*)(void *))dlsym(RTLD_NEXT, "pthread_exit");
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	for (uint32_t i = t->ss_top; i-- > 0;) {
		uintptr_t *slot = (uintptr_t *)t->ss[i].slot;
		if (*slot == (uintptr_t)fnt_return_trampoline)
			*slot = t->ss[i].ret;
	}
	t->ss_restored = 0;
	shadow_drop(t, 0);       /* the written frames are recorded as unwound */
	if (f)
		f(retval);
	for (;;)                 /* no libc pthread_exit to call: cannot happen */
		syscall(SYS_exit, 0);
}

/* -pg links gcrt1.o, whose start-up calls __monstartup and registers
 * _mcleanup (gprof's profil timer and gmon.out).  fntrace is the profiler
 * here: both do nothing. */
FNT_EXPORT void __monstartup(unsigned long lowpc, unsigned long highpc)
{
	(void)lowpc;
	(void)highpc;
}

FNT_EXPORT void _mcleanup(void)
{
}

#endif
