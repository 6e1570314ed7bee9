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
 *   traced: not swapped, nothing written.  A library call that does not
 *   return (exit, longjmp: runtime/libcall.c) has its frame kept, not
 *   swapped (FNT_SS_KEPT): only unwinding ever closes it, and the stack
 *   walks leave its slot alone; one that returns twice (setjmp, vfork) is
 *   its entry and exit at once, with no frame.
 * - Entries whose stack slot lies below the current return's slot belong
 *   to frames that were left without returning (longjmp out of a signal
 *   handler, an exception caught in untraced code): the return trampoline
 *   pops them first and records them as unwound.
 * - C++ exceptions: the unwinder reads return addresses from the stack, so
 *   fnt_unwind_begin puts every real one back before it walks, and
 *   fnt_unwind_caught (from __cxa_begin_catch) records the frames the
 *   exception left as unwound and swaps the survivors again; each landing
 *   pad on the way (_Unwind_SetIP) records the frames below it as unwound
 *   first, so that a cleanup's destructors nest under their own frame.
 * Only the owning thread touches its shadow stack (signal handlers on it
 * nest properly or longjmp away, which the two rules above cover); another
 * thread only ever takes a frame out of one that belongs to a machine stack
 * it runs on and the owner has left (runtime/coro.c, fnt_coro_borrow).  A
 * machine stack's shadow stack goes with it from thread to thread (coro.c).
 * When a return's address is found nowhere, the frames dropped last
 * (the graveyard, below) are the last resort before the abort.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>
#include "fntrace.h"
#include "format/argspec.h"
#include "runtime/event.h"
#include "runtime/fentry.h"

#ifdef FNT_STATIC_ARCHIVE
/* the trampolines are assembly the archive leaves out (see the Makefile) */
void fnt_shadow_release(struct fnt_thread *t)
{
	(void)t;
}

void fnt_shadow_cut(struct fnt_thread *t, uint32_t top)
{
	if (t->ss_top > top)
		t->ss_top = top;
}

void fnt_shadow_close(struct fnt_thread *t)
{
	(void)t;
}

int fnt_shadow_all_closed(const struct fnt_thread *t)
{
	(void)t;
	return 0;
}

void fnt_shadow_bury(const struct fnt_shadow_entry *ss, uint32_t top)
{
	(void)ss, (void)top;
}

void fnt_shadow_unswap(const struct fnt_thread *saved)
{
	(void)saved;
}

void fnt_shadow_reswap(struct fnt_thread *t, uintptr_t sp)
{
	(void)t, (void)sp;
}

void fnt_shadow_vfork_back(struct fnt_thread *t, uintptr_t sp)
{
	(void)t, (void)sp;
}
#else

struct fnt_regs {
	uint64_t gp[9];          /* rdi rsi rdx rcx r8 r9 rax r10 r11 */
	uint64_t xstate;         /* the save area of SAVE_ALL's XSAVE(C), or 0: not the C code's */
	uint64_t xmm[16][2];
};
_Static_assert(sizeof(struct fnt_regs) == 336, "fentry.S frame is 336 bytes");

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
	fnt_coro_runner(t);     /* (a fiber another thread runs may look for its frames here) */
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

/* Copy a C string without ever faulting: process_vm_readv on ourselves
 * fails (or stops short) where the memory is not readable.  It is read
 * straight into its place after the two bytes of its head (no buffer on
 * the stack, which may be a signal handler's small one), and the bytes
 * read past its end are zeroed again: past the record they would read as
 * events. */
uint8_t *fnt_put_string(uint8_t *p, uintptr_t ptr)
{
	if (!ptr) {
		*p++ = FNT_STR_NULL;
		return p;
	}
	long n = fnt_read_self(p + 2, (const void *)ptr, FNT_ARG_STR_MAX);
	if (n <= 0 && ((ptr & 4095) + FNT_ARG_STR_MAX > 4096))
		n = fnt_read_self(p + 2, (const void *)ptr, 4096 - (ptr & 4095));   /* up to an unreadable page */
	if (n <= 0) {
		*p++ = FNT_STR_BAD;
		memcpy(p, &ptr, 8);
		return p + 8;
	}
	size_t len = strnlen((const char *)p + 2, (size_t)n);
	memset(p + 2 + len, 0, (size_t)n - len);
	p[0] = len == (size_t)n ? FNT_STR_CUT : FNT_STR_OK;
	p[1] = (uint8_t)len;
	return p + 2 + len;
}

/* Read n bytes at ptr without ever faulting; 0 when all were read. */
static int read_safe(void *buf, uintptr_t ptr, size_t n)
{
	return fnt_read_self(buf, (const void *)ptr, n) == (long)n ? 0 : -1;
}

/* A counted string (std::string, std::string_view): its first
 * FNT_ARG_STR_MAX bytes, in the payload of a C string (the bytes may hold
 * NULs); a data pointer that cannot be read is <bad 0x...> */
static uint8_t *put_counted(uint8_t *p, uintptr_t data, uint64_t len)
{
	size_t n = len < FNT_ARG_STR_MAX ? (size_t)len : FNT_ARG_STR_MAX;
	if (n && read_safe(p + 2, data, n)) {
		*p++ = FNT_STR_BAD;
		memcpy(p, &data, 8);
		return p + 8;
	}
	p[0] = len > FNT_ARG_STR_MAX ? FNT_STR_CUT : FNT_STR_OK;
	p[1] = (uint8_t)n;
	return p + 2 + n;
}

/* A std::string at obj: libstdc++'s layout (gcc and clang on Linux) is its
 * data pointer, then its length */
static uint8_t *put_std_string(uint8_t *p, uintptr_t obj)
{
	uint64_t w[2];
	if (!obj) {
		*p++ = FNT_STR_NULL;
		return p;
	}
	if (read_safe(w, obj, sizeof(w))) {
		*p++ = FNT_STR_BAD;
		memcpy(p, &obj, 8);
		return p + 8;
	}
	return put_counted(p, (uintptr_t)w[0], w[1]);
}

static uint8_t *put_item(uint8_t *p, const struct fnt_arg_item *it, uint64_t v)
{
	if (it->fmt == FNT_FMT_STRUCT)
		return p;
	if (it->fmt == FNT_FMT_STR)
		return fnt_put_string(p, (uintptr_t)v);
	if (it->fmt == FNT_FMT_STDSTRING)
		return put_std_string(p, (uintptr_t)v);
	memcpy(p, &v, it->size);      /* its size's low bytes (format version 4) */
	return p + it->size;
}

/* the integer-class argument word i (0-based): a register, then the stack */
static inline uint64_t arg_word(const struct fnt_regs *r, const uintptr_t *slot, unsigned i)
{
	return i < 6 ? r->gp[i] : slot[1 + i - 6];   /* stack arguments sit above the return address */
}

/* A long double in st(0) (a return value), copied without changing the x87
 * stack: fxam says whether st(0) holds anything (it only sets the condition
 * codes), and a copy of it is pushed and stored.  16 bytes: the 10 of the
 * value, then 1 when st(0) held one.  The C code that ran since the
 * function returned does not touch the x87 registers. */
static uint8_t *put_st0(uint8_t *p)
{
	uint16_t sw;
	memset(p, 0, 16);
	__asm__ volatile("fxam\n\tfnstsw %0" : "=a"(sw));
	if ((sw & 0x4500) != 0x4100) {          /* C3 C2 C0 = 1 0 1: empty */
		__asm__ volatile("fld %%st(0)\n\tfstpt %0" : "=m"(*(char(*)[10])p));
		p[10] = 1;
	}
	return p + 16;
}

static size_t args_payload(uint8_t *buf, const struct fnt_argspec *spec, const struct fnt_regs *r,
			   const uintptr_t *slot)
{
	uint8_t *p = buf;
	for (unsigned i = 0; i < spec->n; i++) {
		const struct fnt_arg_item *it = &spec->item[i];
		uint64_t v;
		if (it->src == FNT_SRC_RET)
			continue;
		if (it->src == FNT_SRC_FP) {
			v = r->xmm[it->index][0];
		} else if (unlikely(it->fmt >= FNT_FMT_LDOUBLE && it->fmt != FNT_FMT_STDSTRING)) {
			/* two words: a long double's in memory, a string_view's */
			uint64_t w[2] = { arg_word(r, slot, it->index), arg_word(r, slot, it->index + 1u) };
			if (it->fmt == FNT_FMT_STRVIEW) {
				p = put_counted(p, (uintptr_t)w[1], w[0]);
			} else {
				memcpy(p, w, 10);
				memset(p + 10, 0, 6);
				p[10] = 1;
				p += 16;
			}
			continue;
		} else {
			v = arg_word(r, slot, it->index);
		}
		p = put_item(p, it, v);
	}
	return (size_t)(p - buf);
}

#define RET_BUF (2 + FNT_ARG_STR_MAX + 16)

static size_t ret_payload(uint8_t *buf, const struct fnt_argspec *spec, const struct fnt_regs *r)
{
	uint8_t *p = buf;
	for (unsigned i = 0; i < spec->n; i++) {
		const struct fnt_arg_item *it = &spec->item[i];
		if (it->src != FNT_SRC_RET)
			continue;
		if (p + fnt_argspec_item_max(it) > buf + RET_BUF)
			break;          /* (two string retvals: the first only) */
		if (it->fmt == FNT_FMT_LDOUBLE)
			p = put_st0(p);
		else if (it->fmt == FNT_FMT_STRVIEW)
			p = put_counted(p, (uintptr_t)r->gp[2], r->gp[6]);   /* rax: length, rdx: data */
		else
			p = put_item(p, it, it->fmt == FNT_FMT_FLOAT ? r->xmm[0][0] : r->gp[6]);
	}
	return (size_t)(p - buf);
}

/* The payloads are written in place in the chunk (fnt_event_ext,
 * fnt_put_ext), never through a buffer on the stack: these run in signal
 * handlers on small stacks too (doc/safety.md, the hooks' stack use). */
struct payload_args {
	const struct fnt_argspec *spec;
	const struct fnt_regs *r;
	const uintptr_t *slot;
};

static size_t args_fill(uint8_t *dst, const void *arg)
{
	const struct payload_args *a = arg;
	return args_payload(dst, a->spec, a->r, a->slot);
}

static size_t ret_fill(uint8_t *dst, const void *arg)
{
	const struct payload_args *a = arg;
	return ret_payload(dst, a->spec, a->r);
}

/* the most bytes a spec's arguments (is_ret: its return value) can take */
static size_t payload_max(const struct fnt_argspec *spec, int is_ret)
{
	size_t n = 0;
	for (unsigned i = 0; i < spec->n; i++)
		if ((spec->item[i].src == FNT_SRC_RET) == is_ret)
			n += fnt_argspec_item_max(&spec->item[i]);
	return is_ret && n > RET_BUF ? RET_BUF : n;
}

/* The general path of an entry with its ARGS record, with the guard held:
 * a new chunk, a cache miss, a call site, an item the plan does not know.
 * 0, or -1 when nothing was written. */
static __attribute__((noinline)) int args_slow(struct fnt_thread *t, const struct fnt_argplan *plan, uintptr_t fn,
					       uintptr_t site, const struct fnt_regs *r, const uintptr_t *slot)
{
	struct payload_args a = { plan->spec, r, slot };
	return fnt_event_ext(t, fn, site, 0, FNT_EXT_ARGS, payload_max(plan->spec, 0), args_fill, &a);
}

/* ...and of an exit with its RETVAL record: 0, -1 when nothing was
 * written, 1 when there is no payload (a plain exit is due) */
static __attribute__((noinline)) int ret_slow(struct fnt_thread *t, const struct fnt_argplan *plan, uintptr_t fn,
					      const struct fnt_regs *r)
{
	struct payload_args a = { plan->spec, r, NULL };
	size_t max = payload_max(plan->spec, 1);
	if (!max)
		return 1;
	return fnt_event_ext(t, fn, 0, 1, FNT_EXT_RETVAL, max, ret_fill, &a);
}

void fnt_shadow_enter(struct fnt_regs *r, uintptr_t fn, uintptr_t *slot) FNT_HIDDEN;
void fnt_shadow_enter_how(struct fnt_regs *r, uintptr_t fn, uintptr_t *slot, int how) FNT_HIDDEN;

void fnt_fentry_enter(struct fnt_regs *r, uintptr_t ret_in_fn, uintptr_t *slot)
{
	if (unlikely(fentry_saves_chain(ret_in_fn)))
		slot++;         /* past the saved %r10 of a gcc nested function */
	fnt_shadow_enter(r, fentry_fn(ret_in_fn), slot);
}

/* Room on the shadow stack for a frame, checked again once the entry is
 * written: the write may have found the thread on another machine stack,
 * whose shadow stack is not made yet (a handler on a sigaltstack that
 * landed between the first check and the write, or a jump back from one),
 * and the push wrote through a null pointer (a -P library call, two
 * threads with 20 us timers whose handlers jump out of a sigaltstack).
 * -1, counted as lost, when there is none: the call's exit is not seen. */
static __attribute__((noinline)) int shadow_room_again(struct fnt_thread *t)
{
	if (!t->ss && !shadow_alloc(t))
		return 0;
	fnt_lost_events(t, t->ss ? FNT_LOST_SHADOW : FNT_LOST_NOSPACE, 1);
	return -1;
}

/* The frame of a call whose entry was just seen by the filters (written or
 * not), as `how` says (FNT_ENTER_*), with the guard held; 1 when the exit
 * of a zero-length call was written, which released the guard. */
static inline __attribute__((always_inline)) int shadow_frame(struct fnt_thread *t, uintptr_t fn, uintptr_t *slot,
							       const struct fnt_argplan *plan, uint32_t written,
							       const int how)
{
	if (how == FNT_ENTER_SWAP) {
		fnt_shadow_push(t, fn, slot, plan, written);
	} else if (how == FNT_ENTER_KEPT) {
		fnt_shadow_put(t, fn, slot, plan, written | FNT_SS_KEPT);
	} else if (unlikely(fnt_filtering)) {
		/* its exit, now: through the filters as any exit (-t erases it) */
		if (!fnt_gate_skip(t, fn, 1) && written) {
			fnt_event_write(t, fn, 0, 1);
			return 1;
		}
	}
	return 0;
}

/* ...with the guard held, after the room is checked again (the entry
 * written may have found the thread on another machine stack); the guard
 * released */
static inline __attribute__((always_inline)) void shadow_place(struct fnt_thread *t, uintptr_t fn, uintptr_t *slot,
							       const struct fnt_argplan *plan, uint32_t written,
							       const int how)
{
	if (unlikely(!t->ss || t->ss_top == t->ss_cap) && shadow_room_again(t)) {
		barrier();
		t->busy = 0;
		return;
	}
	if (shadow_frame(t, fn, slot, plan, written, how))
		return;
	barrier();
	t->busy = 0;
}

/* The entry of fn, whose return address is at *slot, and its frame as
 * `how` says (a constant: FNT_ENTER_SWAP for every function, the others
 * for some library calls). */
static inline __attribute__((always_inline)) void shadow_enter(struct fnt_regs *r, uintptr_t fn, uintptr_t *slot,
							       const int how)
{
	struct fnt_thread *t = &fnt_self;
	const struct fnt_argplan *plan = NULL;
	int32_t depth;
	/* a call kept open has no exit to lose */
	const unsigned events = how == FNT_ENTER_KEPT ? 1 : 2;
	/* record --callsite: the call site is the return address, in the caller */
	uintptr_t site = unlikely(fnt_flags & FNT_FLAG_CALLSITE) ? *slot : 0;

	/* another machine stack: its own shadow stack first (coro.c); or a
	 * context on this thread's TLS that is not the thread: not traced,
	 * entry nor exit */
	if (fnt_stack_check(t, (uintptr_t)slot, events))
		return;
	if (unlikely(fnt_no_clock)) {
		/* seccomp strict (clock.c): not traced, entry nor exit, and no
		 * system call (a first shadow stack would be an mmap) */
		fnt_lost_events(t, FNT_LOST_NOCLOCK, 2);
		return;
	}
	if (unlikely(!t->ss || t->ss_top == t->ss_cap)) {
		if (t->busy) {
			fnt_lost_events(t, FNT_LOST_REENTRANT, events);   /* its entry and its exit, if any */
			return;
		}
		if (!t->ss) {
			if (shadow_alloc(t)) {
				/* no memory for one: not traced, entry nor exit */
				fnt_lost_events(t, FNT_LOST_NOSPACE, 2);
				return;
			}
		} else {
			/* deeper than the shadow stack: not traced, entry nor exit */
			fnt_lost_events(t, FNT_LOST_SHADOW, events);
			return;
		}
	}
	if (unlikely(fnt_filtering)) {
		/* record-time filters: every call the filters see goes on the
		 * shadow stack, written or not, so that its return reaches them
		 * too (the same entry/exit pairs as the -finstrument-functions
		 * hooks); only the written ones get an exit event */
		uintptr_t written = 0;
		if (t->busy) {
			fnt_lost_events(t, FNT_LOST_REENTRANT, events);
			return;
		}
		t->busy = 1;
		barrier();
		if (!fnt_gate_skip(t, fn, 0)) {
			depth = t->depth;
			if (unlikely(fnt_argspec_count) && (plan = fnt_argspec_find(fn)) != NULL) {
				if (!values_fast(t, &plan->args, fn, (const uint64_t *)r, slot, 0))
					args_slow(t, plan, fn, site, r, slot);
			} else {
				fnt_event_write(t, fn, site, 0);   /* releases the guard */
				t->busy = 1;
				barrier();
			}
			written = t->depth != depth;
		}
		shadow_place(t, fn, slot, written ? plan : NULL, written, how);
		return;
	}
	if (unlikely(fnt_argspec_count) && (plan = fnt_argspec_find(fn)) != NULL) {
		if (t->busy) {
			fnt_lost_events(t, FNT_LOST_REENTRANT, events);
			return;
		}
		t->busy = 1;
		barrier();
		if (unlikely(fnt_paused()) && fnt_gate_skip(t, fn, 0)) {
			/* fnt_disable(): not recorded, and the call left alone,
			 * as fnt_event does with a call that has no values (its
			 * return is not seen: fnt_off_step does not count it) */
			t->off_rel--;
			barrier();
			t->busy = 0;
			return;
		}
		uint32_t off_epoch = t->off_epoch;
		int32_t off_rel = t->off_rel;
		int rc = values_fast(t, &plan->args, fn, (const uint64_t *)r, slot, 0) ? 0 : args_slow(t, plan, fn, site, r, slot);
		/* (a trace_off trigger on fn: not recorded, and left alone, as
		 * below; it counted the call as entered while off, whose return
		 * is not seen.  Counted, it took the next return of a written
		 * call for its own, and that return was not written) */
		if (rc && (t->off_rel != off_rel || t->off_epoch != off_epoch))
			t->off_rel--;
		barrier();
		t->busy = 0;
		if (rc)
			return;
	} else {
		uint32_t off_epoch = t->off_epoch;
		int32_t off_rel = t->off_rel;
		depth = t->depth;
		fnt_event(fn, site, 0);
		if (t->depth == depth) {     /* not recorded: leave the call alone */
			if (t->off_rel != off_rel || t->off_epoch != off_epoch)
				t->off_rel--;    /* (recording off: its return is not seen, fnt_off_step) */
			if (how == FNT_ENTER_KEPT)
				return;          /* (no exit to count) */
			if (t->busy)             /* inside a signal handler: its exit will be missing too */
				fnt_lost_events(t, FNT_LOST_REENTRANT, 1);
			else if (t->state == FNT_T_OFF)   /* no chunk (disk full, RLIMIT_FSIZE): likewise */
				fnt_lost_events(t, FNT_LOST_NOSPACE, 1);
			else if (fnt_stack_foreign(t))    /* not this thread (fnt_foreign_event): likewise */
				fnt_foreign_lost(1);
			return;
		}
		if (unlikely(fnt_argspec_count) && (plan = fnt_argspec_find(fn)) != NULL) {
			/* the first event started the runtime and loaded the specs */
			struct payload_args a = { plan->spec, r, slot };
			if (!t->busy) {
				t->busy = 1;
				__asm__ volatile("" ::: "memory");
				fnt_put_ext(t, FNT_EXT_ARGS, payload_max(plan->spec, 0), args_fill, &a);
				__asm__ volatile("" ::: "memory");
				t->busy = 0;
			}
		}
	}
	if (how == FNT_ENTER_ZERO) {
		fnt_event(fn, 0, 1);
		return;
	}
	/* the push, under the guard: a signal handler landing between filling
	 * the entry and counting it would push its own calls over it */
	if (t->busy)
		return;         /* (cannot happen: nothing above leaves it held) */
	t->busy = 1;
	barrier();
	shadow_place(t, fn, slot, plan, 1, how);
}

/* The entry of fn, whose return address is at *slot (also the library-call
 * trampolines' way in: runtime/libcall.c). */
void fnt_shadow_enter(struct fnt_regs *r, uintptr_t fn, uintptr_t *slot)
{
	shadow_enter(r, fn, slot, FNT_ENTER_SWAP);
}

/* ...of a library call that does not return, or returns twice */
void fnt_shadow_enter_how(struct fnt_regs *r, uintptr_t fn, uintptr_t *slot, int how)
{
	if (how == FNT_ENTER_KEPT)
		shadow_enter(r, fn, slot, FNT_ENTER_KEPT);
	else
		shadow_enter(r, fn, slot, FNT_ENTER_ZERO);
}

/* Which entries of a shadow stack are live frames', walked from the top
 * down: one whose slot lies above those of every entry above it; or at the
 * slot of the live one just above it when that one was entered by a tail
 * call (its return address is the trampoline, which its return leaves in
 * the slot for this frame's).  Any other was left unseen (by longjmp, or
 * by a context the hooks did not tell from the thread), and its slot has
 * been reused since, maybe by the frame above it. */
struct live_walk {
	uintptr_t above;        /* the slot of the last live entry (0: none yet) */
	int tail;               /* ...which was entered by a tail call */
};

static int shadow_live(const struct fnt_shadow_entry *e, struct live_walk *lw)
{
	if (e->slot < lw->above || (e->slot == lw->above && !lw->tail))
		return 0;
	lw->above = e->slot;
	lw->tail = e->ret == (uintptr_t)fnt_return_trampoline;
	return 1;
}

/* ---- the graveyard: frames dropped without returning ----
 * A frame dropped from a shadow stack because it was left (shadow_drop, a
 * longjmp) is gone for good, unless the runtime took two machine stacks for
 * one (hand-written switches between stacks less than STACK_JUMP apart, a
 * switch it could not follow): then its function still returns, later,
 * through the trampoline, and no shadow stack holds its return address.
 * The last GRAVE_MAX dropped frames keep theirs here, for the return
 * trampoline's last resort (fnt_fentry_exit).  The trampoline in a slot was
 * put there by the latest frame pushed there: when no shadow stack holds a
 * frame for the slot, that is the latest one dropped, as frames are
 * written here oldest first (a dead frame's entry that stayed on some
 * shadow stack while a newer one at the same slot was dropped would
 * mislead it: frames left unseen by longjmp across stacks).  A slot reads
 * 0 while its entry is rewritten. */
#define GRAVE_MAX 1024u
static struct {
	uintptr_t slot, ret;
} grave[GRAVE_MAX];
static uint32_t grave_next;

static void grave_add(const struct fnt_shadow_entry *e)
{
	if (e->written & FNT_SS_KEPT)
		return;         /* (its return address was left as it was) */
	uint32_t i = __atomic_fetch_add(&grave_next, 1, __ATOMIC_RELAXED) & (GRAVE_MAX - 1);
	__atomic_store_n(&grave[i].slot, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&grave[i].ret, e->ret, __ATOMIC_RELAXED);
	__atomic_store_n(&grave[i].slot, e->slot, __ATOMIC_RELEASE);
}

/* the return address of the latest frame dropped at slot: 1, or 0 if none.
 * A frame entered by a tail call shares its caller's slot and holds the
 * trampoline as its return address: the caller's is the one. */
static int grave_find(uintptr_t slot, uintptr_t *ret)
{
	uint32_t last = __atomic_load_n(&grave_next, __ATOMIC_RELAXED);
	for (uint32_t k = 1; k <= GRAVE_MAX; k++) {
		uint32_t i = (last - k) & (GRAVE_MAX - 1);
		if (__atomic_load_n(&grave[i].slot, __ATOMIC_ACQUIRE) != slot)
			continue;
		uintptr_t r = __atomic_load_n(&grave[i].ret, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&grave[i].slot, __ATOMIC_RELAXED) != slot ||
		    r == (uintptr_t)fnt_return_trampoline)
			continue;       /* rewritten meanwhile; a tail call's */
		*ret = r;
		return 1;
	}
	return 0;
}

/* the frames from index top up are left: into the graveyard */
void fnt_shadow_cut(struct fnt_thread *t, uint32_t top)
{
	if (t->ss_top > top) {
		fnt_shadow_bury(t->ss + top, t->ss_top - top);
		t->ss_top = top;
	}
}

/* A jump leaves the machine stack in use for good (setjmp.c): the trace
 * closes every call open on it, and the filters' depth goes back to its
 * base.  Its frames may still return: a scheduler that runs coroutines by
 * setjmp/longjmp resumes one by a jump into it later, and it returns
 * through them.  So each frame stays, with its real return address,
 * marked CLOSED: its return writes nothing and the filters do not see it
 * (exit_event), and dropping it records nothing (shadow_drop).  Before,
 * the frames went to the graveyard, whose 1,024 entries for the process
 * a coroutine kept waiting while others yielded outlived: its return then
 * found no address and the runtime aborted the program.  The entries that
 * are no live frame's (an earlier round's, left below the frames entered
 * since at the same slots) go now, so that a stack left this way again
 * and again does not fill its shadow stack. */
void fnt_shadow_close(struct fnt_thread *t)
{
	uint32_t top = t->ss_top, w = top;
	struct live_walk lw = { 0, 0 };
	/* the live ones gather at the top end (w never passes i)... */
	for (uint32_t i = top; i-- > 0;) {
		struct fnt_shadow_entry e = t->ss[i];
		if (shadow_live(&e, &lw)) {
			e.written = (e.written & FNT_SS_KEPT) | FNT_SS_CLOSED;
			t->ss[--w] = e;
		} else {
			grave_add(&e);
		}
	}
	/* ...and go down to the bottom */
	memmove(t->ss, t->ss + w, (top - w) * sizeof(*t->ss));
	t->ss_top = top - w;
}

int fnt_shadow_all_closed(const struct fnt_thread *t)
{
	for (uint32_t i = 0; i < t->ss_top; i++)
		if (!(t->ss[i].written & FNT_SS_CLOSED))
			return 0;
	return 1;
}

void fnt_shadow_bury(const struct fnt_shadow_entry *ss, uint32_t top)
{
	for (uint32_t i = 0; i < top; i++)
		grave_add(&ss[i]);
}

/* Pop the frames from index j up, recording the written ones as unwound;
 * the record-time filters leave them too (not the CLOSED ones, which they
 * left already). */
static void shadow_drop(struct fnt_thread *t, uint32_t j)
{
	uint32_t n = 0, all = 0, gone = 0;
	int32_t from = 0;
	for (uint32_t i = j; i < t->ss_top; i++) {
		all += !(t->ss[i].written & FNT_SS_CLOSED);
		/* a library call under -finstrument-functions code that an
		 * exception left: the exit hooks its cleanups ran for the frames
		 * around it already closed it (the reader closes the frames
		 * above the one that returns), so it is not unwound again */
		if ((t->ss[i].written & FNT_SS_WRITTEN) && t->ss[i].depth > t->depth)
			gone++;
		else if ((t->ss[i].written & FNT_SS_WRITTEN) && !from)
			from = t->ss[i].depth;
	}
	/* every traced frame from the outermost one left up is gone, the
	 * -finstrument-functions frames called under a library call included
	 * (pthread_exit in a qsort callback: the callback and qsort) */
	if (from && t->depth - (int32_t)gone >= from)
		n = (uint32_t)(t->depth - (int32_t)gone - from + 1);
	fnt_shadow_cut(t, j);
	if (!t->busy) {
		t->busy = 1;
		t->depth -= (int32_t)gone;
		if (n && unlikely(fnt_filtering))   /* -C, -t: those the filters would have erased go */
			n -= (uint32_t)fnt_filter_unwind_erase(t, t->depth - (int32_t)n);
		if (n && unlikely(fnt_trig_flags & FNT_TRIG_TIME))   /* time= calls shorter than theirs */
			n -= (uint32_t)fnt_trigger_unwind_erase(t, t->depth - (int32_t)n);
		if (n)
			fnt_put_unwind(t, n);
		if (unlikely(fnt_filtering))
			fnt_filter_longjmp(t, t->flt.fdepth - (int32_t)all);
		t->busy = 0;
	}
}

/* A return whose real address the runtime cannot find: no shadow stack
 * holds its frame (this thread's, in use or parked by any thread, the one
 * another thread left unseen), and none of the last frames dropped as left
 * was at its slot (fnt_fentry_exit).  The trampoline
 * overwrote the only copy the program had, in its own stack, so there is
 * no address to go on at: any guess could run the program on wrong, which
 * is worse than stopping it with the reason.  The one place where the
 * runtime stops its host; doc/safety.md says which ways lead here. */
static __attribute__((noinline, cold, noreturn)) uintptr_t shadow_lost(uintptr_t slot)
{
	char msg[128] = "fntrace: shadow stack out of sync: no return address for the frame returning at 0x";
	size_t n = strlen(msg);
	for (int sh = 60; sh >= 0; sh -= 4)
		msg[n++] = "0123456789abcdef"[(slot >> sh) & 15];
	memcpy(msg + n, "; aborting\n", 11);
	(void)!write(2, msg, n + 11);
	abort();
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

/* A hand-made vfork's child shares its parent's stack, whose frames have
 * their return addresses swapped for the return trampoline.  A child that
 * returns from the function that cloned it would run the trampoline on
 * that stack: its frame would overwrite what the function keeps below its
 * return address (registers it saved for its caller), which the parent
 * reads when it returns too.  So when the child is found (vfork.c,
 * fnt_vfork_adopt), the parent's frames get their real return addresses
 * back (saved: the parent's state); the child returns from them as it
 * would untraced, unseen.  The trampoline goes back when the parent is
 * back (fnt_shadow_vfork_back).  Not during an unwind, which has put the
 * real addresses back already.
 */

void fnt_shadow_unswap(const struct fnt_thread *saved)
{
	struct live_walk lw = { 0, 0 };
	if (saved->ss_restored)
		return;
	for (uint32_t i = saved->ss_top; i-- > 0;) {
		uintptr_t *slot = (uintptr_t *)saved->ss[i].slot;
		if (shadow_live(&saved->ss[i], &lw) && *slot == (uintptr_t)fnt_return_trampoline)
			*slot = saved->ss[i].ret;
	}
}

/* The parent is back with its own state, at a point where sp is its stack
 * pointer (or the slot of the call it is entering).  The frames it left
 * meanwhile (their return address at or below sp) returned without the
 * trampoline: their exits are written now (down to the first entry that
 * is not a live frame's, which stays for the next return to drop).  The
 * ones it is still in get the trampoline back in their slot. */
static void shadow_reswap(struct fnt_thread *t, uintptr_t sp, struct live_walk *lw)
{
	if (t->ss_restored)
		return;
	for (uint32_t i = t->ss_top; i-- > 0;) {
		uintptr_t *slot = (uintptr_t *)t->ss[i].slot;
		if (shadow_live(&t->ss[i], lw) && (uintptr_t)slot > sp && *slot == t->ss[i].ret)
			*slot = (uintptr_t)fnt_return_trampoline;
	}
}

/* the trampoline back in the frames above sp after fnt_shadow_unswap */
void fnt_shadow_reswap(struct fnt_thread *t, uintptr_t sp)
{
	struct live_walk lw = { 0, 0 };
	shadow_reswap(t, sp, &lw);
}

void fnt_shadow_vfork_back(struct fnt_thread *t, uintptr_t sp)
{
	struct live_walk lw = { 0, 0 };
	while (t->ss_top && t->ss[t->ss_top - 1].slot <= sp && shadow_live(&t->ss[t->ss_top - 1], &lw)) {
		struct fnt_shadow_entry e = t->ss[--t->ss_top];
		if (t->busy)
			continue;
		t->busy = 1;
		barrier();
		if ((e.written & FNT_SS_CLOSED) ||
		    (unlikely(fnt_filtering | fnt_paused()) && fnt_gate_skip(t, e.fn, 1)) || !e.written) {
			barrier();
			t->busy = 0;
			continue;
		}
		fnt_event_write(t, e.fn, 0, 1);  /* releases the guard */
	}
	shadow_reswap(t, sp, &lw);
}

static void exit_event(struct fnt_thread *t, const struct fnt_shadow_entry *ep, struct fnt_regs *r);

/* A return whose frame is not found at once, searched for again: with the
 * asynchronous signals blocked from then on, to the end of the return.
 * A handler on a sigaltstack that lands between the search and the pop
 * switches the thread to its stack and leaves it there, so the frame is
 * not on the shadow stack in use when the search looks at it.  And it
 * lands there whenever a signal is pending at the end of the search's
 * switch: a program that may jump out of handlers has the signals
 * unblocked there (coro.c, switch_block), and the kernel delivers a
 * pending one as that system call returns.  Under a timer whose traced
 * handlers take about as long as its period (20 us, on a loaded machine),
 * one was pending at every try: 16 went by within one return, the search
 * gave up, and the runtime aborted the program ("shadow stack out of
 * sync"). */
static inline void exit_block(uint64_t *was, int *blocked)
{
	if (!*blocked)
		*blocked = fnt_async_block(was) ? 1 : -1;
}

static inline __attribute__((always_inline)) uintptr_t fentry_exit(struct fnt_regs *r, uintptr_t sp, uint64_t *was,
								   int *blocked)
{
	struct fnt_thread *t = &fnt_self;
	uintptr_t slot = sp - 8;
	struct fnt_shadow_entry e;
	struct fnt_vfork *vfork;
	int tries = 0;

again:
	if (unlikely(!t->ss_top || t->ss[t->ss_top - 1].slot != slot)) {
		/* frames above ours were left without returning (longjmp out of a
		 * signal handler, an exception caught in untraced code): find our
		 * entry by its slot and drop the ones above it as unwound */
		uint32_t j = t->ss_top;
		while (j > 0 && t->ss[j - 1].slot != slot)
			j--;
		if (!j && fnt_coro_find_slot(t, slot)) {
			/* a coroutine returned to its uc_link, or a fiber came
			 * from another thread: on that stack now */
			j = t->ss_top;
			while (j > 0 && t->ss[j - 1].slot != slot)
				j--;
		}
		if (!j && unlikely(t->vfork) && fnt_vfork_lent(t, slot - 8) == 2)
			return fnt_fentry_exit(r, sp);   /* a hand-made vfork's parent, back: its own state (vfork.c) */
		if (!j && fnt_coro_borrow(t, slot, &e)) {
			/* a stack that another thread left unseen (coro.c): the
			 * return is this thread's */
			exit_event(t, &e, r);
			return e.ret;
		}
		/* a handler on a sigaltstack that landed in the search (where a
		 * switch lets the signals blocked in it through) and returned
		 * left the thread on the signal stack, and the frame's stack
		 * parked again, maybe in a slot the search had passed: search again,
		 * with the signals blocked (exit_block),
		 * before giving up, and before the graveyard, which may hold an
		 * older frame at the same slot (one a jump left): its address
		 * was taken while the frame stayed on its stack, its exit never
		 * written, and the program's later calls showed inside it */
		if (!j && tries++ < 16) {
			exit_block(was, blocked);
			goto again;
		}
		if (!j && grave_find(slot, &e.ret))
			return e.ret;    /* a frame dropped as left that was not (its exit: the UNWIND then) */
		if (!j)
			return shadow_lost(slot);
		shadow_resync(t, slot);          /* (drops exactly those: their slots lie below ours) */
		if (t->ss_top != j)
			/* not below ours: another stack (coroutines); drop them anyway */
			shadow_drop(t, j);
	}
	/* The pop, under the guard, of the frame found on top: a handler on
	 * a sigaltstack that lands between the search and the pop and
	 * returns leaves the thread on its stack (its hooks switch to it),
	 * and the pop took that stack's top (the program then returned to
	 * a wrong address, or found none and aborted, "out of sync").  A
	 * handler that lands once the guard is held switches nothing. */
	uint32_t held = t->busy;
	if (likely(!held)) {
		t->busy = 1;
		barrier();
		if (unlikely(!t->ss_top || t->ss[t->ss_top - 1].slot != slot)) {
			barrier();
			t->busy = 0;
			exit_block(was, blocked);
			goto again;     /* (the stack switched meanwhile: find the frame again) */
		}
	}
	e = t->ss[t->ss_top - 1];
	t->ss_top--;
	if (likely(!held)) {
		barrier();
		t->busy = 0;
	}
	vfork = t->vfork;
	exit_event(t, &e, r);
	if (unlikely(t->vfork != vfork)) {
		/* this return was a hand-made vfork child's first event, from a
		 * frame its parent entered: the frame stays the parent's */
		fnt_vfork_keep_frame(t, slot);
		/* a frame entered by a tail call returns, through the same
		 * slot, for its callers too: their real return address is the
		 * one the child's state put back there (fnt_shadow_unswap), not
		 * the trampoline again */
		if (e.ret == (uintptr_t)fnt_return_trampoline)
			return *(uintptr_t *)slot;
	}
	return e.ret;
}

uintptr_t fnt_fentry_exit(struct fnt_regs *r, uintptr_t sp)
{
	uint64_t was;
	int blocked = 0;
	uintptr_t ret = fentry_exit(r, sp, &was, &blocked);
	if (unlikely(blocked > 0))
		fnt_async_unblock(&was);
	return ret;
}

/* The exit event of e, with its return value if it has a plan. */
static void exit_event(struct fnt_thread *t, const struct fnt_shadow_entry *ep, struct fnt_regs *r)
{
	struct fnt_shadow_entry e = *ep;

	if (unlikely(e.written & FNT_SS_CLOSED))
		return;         /* (closed by the jump that left its stack: fnt_shadow_close) */

	if (unlikely(fnt_filtering)) {
		/* the filters see every return of a call they saw enter; an
		 * entry erased now (-t) took its ARGS record with it */
		if (t->busy)
			return;
		t->busy = 1;
		barrier();
		if (fnt_gate_skip(t, e.fn, 1) || !(e.written & FNT_SS_WRITTEN)) {
			barrier();
			t->busy = 0;
			return;
		}
		if (e.plan && e.plan->ret.max && (values_fast(t, &e.plan->ret, e.fn, (const uint64_t *)r, NULL, 1) || ret_slow(t, e.plan, e.fn, r) <= 0)) {
			barrier();
			t->busy = 0;
			return;
		}
		fnt_event_write(t, e.fn, 0, 1);  /* releases the guard */
		return;
	}
	/* (while fnt_disable() is in force, fnt_event drops the exit) */
	if (e.plan && e.plan->ret.max && !t->busy && !fnt_paused()) {
		t->busy = 1;
		barrier();
		if (values_fast(t, &e.plan->ret, e.fn, (const uint64_t *)r, NULL, 1) || ret_slow(t, e.plan, e.fn, r) <= 0) {
			barrier();
			t->busy = 0;
			return;
		}
		barrier();
		t->busy = 0;
	}
	fnt_event(e.fn, 0, 1);
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

/* Put the real return addresses back for a walk of the stack.  Innermost
 * first, so a slot shared by a tail call and its caller ends up with the
 * caller's real address. */
static uint32_t shadow_put_back(struct fnt_thread *t)
{
	uint32_t low = t->ss_top;     /* the lowest put back */
	for (uint32_t i = t->ss_top; i-- > 0;) {
		uintptr_t *slot = (uintptr_t *)t->ss[i].slot;
		if (*slot == (uintptr_t)fnt_return_trampoline && !(t->ss[i].written & FNT_SS_KEPT)) {
			*slot = t->ss[i].ret;
			low = i;
		}
	}
	return low;
}

/* ...and swap them again once it is over, from the frame `from` up. */
static void shadow_swap_again(struct fnt_thread *t, uint32_t from)
{
	for (uint32_t i = from; i < t->ss_top; i++) {
		uintptr_t *slot = (uintptr_t *)t->ss[i].slot;
		if (*slot == t->ss[i].ret && !(t->ss[i].written & FNT_SS_KEPT))
			*slot = (uintptr_t)fnt_return_trampoline;
	}
}

/* An unwind starts, or resumes after a cleanup (the stubs below, and
 * pthread_exit's wrapper): the unwinder needs the real return addresses,
 * and the landing pads drop the frames it leaves (_Unwind_SetIP). */
static void unwind_start(struct fnt_thread *t)
{
	shadow_put_back(t);
	if (t->ss_top)
		t->ss_restored = 1;
}

void *fnt_unwind_begin(int which, uintptr_t sp)
{
	(void)sp;
	unwind_start(&fnt_self);
	return unwind_target(which);
}

/* A handler caught it in the frame whose %rsp is sp: the frames below are
 * gone; the ones above get their trampoline back. */
void *fnt_unwind_caught(int which, uintptr_t sp)
{
	struct fnt_thread *t = &fnt_self;
	if (t->ss_restored) {
		shadow_resync(t, sp);
		shadow_swap_again(t, 0);
		t->ss_restored = 0;
	}
	return unwind_target(which);
}

static void (*setip_real(void))(struct _Unwind_Context *, _Unwind_Ptr)
{
	static void (*real)(struct _Unwind_Context *, _Unwind_Ptr);
	void (*f)(struct _Unwind_Context *, _Unwind_Ptr) = __atomic_load_n(&real, __ATOMIC_RELAXED);

	if (!f) {
		f = (void (*)(struct _Unwind_Context *, _Unwind_Ptr))dlsym(RTLD_NEXT, "_Unwind_SetIP");
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	return f;
}

/* The personality of the return trampoline's frame.  An unwind that meets
 * a swapped return address as a frame's (the stubs above put them back
 * before an unwind starts, but glibc starts a cancelled thread's forced
 * unwind through its own pointer into libgcc) would end there, its
 * undefined return address taken as the stack's end: the thread's
 * cleanups above it (C++ destructors, -fexceptions cleanups) never ran.
 * In the cleanup phase the unwind lands in fnt_unwind_pad instead, which
 * resumes it with the real return addresses back. */
void fnt_unwind_pad(void) FNT_HIDDEN;

_Unwind_Reason_Code fnt_trampoline_personality(int version, _Unwind_Action actions, _Unwind_Exception_Class cls,
					       struct _Unwind_Exception *exc, struct _Unwind_Context *c) FNT_HIDDEN;
_Unwind_Reason_Code fnt_trampoline_personality(int version, _Unwind_Action actions, _Unwind_Exception_Class cls,
					       struct _Unwind_Exception *exc, struct _Unwind_Context *c)
{
	void (*setip)(struct _Unwind_Context *, _Unwind_Ptr) = setip_real();
	(void)cls;
	if (version != 1 || !(actions & _UA_CLEANUP_PHASE) || !setip)
		return _URC_CONTINUE_UNWIND;
	/* only a frame met through its return address: %rsp one past a
	 * slot the shadow stack knows (a signal frame, even one on the
	 * trampoline's first instruction, is not landed).  Elsewhere in the trampoline (an
	 * asynchronous cancel) the stack is not the caller's: end there. */
	{
		int before = 0;
		uintptr_t ip = (uintptr_t)_Unwind_GetIPInfo(c, &before);
		uintptr_t sp = (uintptr_t)_Unwind_GetCFA(c);   /* (the frame's %rsp) */
		struct fnt_thread *t = &fnt_self;
		uint32_t i = t->ss_top;
		if (ip != (uintptr_t)fnt_return_trampoline || before || (sp & 15))
			return _URC_CONTINUE_UNWIND;
		while (i > 0 && t->ss[i - 1].slot != sp - 8)
			i--;
		if (!i)
			return _URC_CONTINUE_UNWIND;
	}
	_Unwind_SetGR(c, __builtin_eh_return_data_regno(0), (_Unwind_Ptr)exc);
	setip(c, (_Unwind_Ptr)fnt_unwind_pad);   /* (not a function's landing: not recorded) */
	return _URC_INSTALL_CONTEXT;
}

/* The personality routine found a landing pad (a cleanup that runs
 * destructors, or a catch) in the frame whose CFA the context gives, and
 * sets the IP to it just before the unwinder jumps there: every frame
 * below that one is gone now.  (_Unwind_GetCFA gives that frame's %rsp at
 * its call, in libgcc and LLVM's libunwind alike: the slots below it.)  Recording them as unwound here, rather
 * than at the catch, puts the destructors the cleanup calls into the frame
 * that owns the objects, after the frames the exception left. */
FNT_EXPORT void _Unwind_SetIP(struct _Unwind_Context *c, _Unwind_Ptr ip)
{
	struct fnt_thread *t = &fnt_self;
	void (*f)(struct _Unwind_Context *, _Unwind_Ptr) = setip_real();

	if (t->ss_top && t->ss_restored)
		shadow_resync(t, _Unwind_GetCFA(c));
	/* and for the reader, which function's frame it lands in (the calls
	 * of clang's -finstrument-functions builds have no exit here) */
	uintptr_t region = (uintptr_t)_Unwind_GetRegionStart(c);
	/* with filters on, the runtime knows the calls left (their UNWIND,
	 * or nothing when none was written); else the reader finds them */
	if (!fnt_filter_landing(t, region))
		fnt_put_unwind_to(t, region, (uintptr_t)ip);
	if (f)
		f(c, ip);
}

/* ---- stack walks by the program ----
 * backtrace() and _Unwind_Backtrace read return addresses from the stack:
 * they see the real ones while they walk (a walk inside an exception's
 * unwind finds them back already, and leaves them so).  glibc's backtrace
 * reaches libgcc through its own pointer, past the _Unwind_Backtrace
 * wrapper, so it is walked here with the real _Unwind_Backtrace instead,
 * from its caller's frame on, as glibc does. */
typedef _Unwind_Reason_Code (*unwind_trace_fn)(_Unwind_Trace_Fn, void *);

static unwind_trace_fn unwind_backtrace_real(void)
{
	static unwind_trace_fn real;
	unwind_trace_fn f = __atomic_load_n(&real, __ATOMIC_RELAXED);
	if (!f) {
		f = (unwind_trace_fn)dlsym(RTLD_NEXT, "_Unwind_Backtrace");
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	return f;
}

/* backtrace() is often called from a crash handler, and the trampoline's
 * personality from a cancellation's signal handler: look libgcc up at
 * start, not there (dlsym's stack use, see doc/safety.md) */
__attribute__((constructor)) static void unwind_backtrace_resolve(void)
{
	(void)unwind_backtrace_real();
	(void)setip_real();
}

/* inlined: the walk's first frame is the exported function that called it */
static inline __attribute__((always_inline)) _Unwind_Reason_Code walk_real(struct fnt_thread *t,
									     _Unwind_Trace_Fn fn, void *arg)
{
	unwind_trace_fn f = unwind_backtrace_real();
	_Unwind_Reason_Code rc;
	uint32_t low;

	if (!f)
		return _URC_FATAL_PHASE1_ERROR;
	/* (during an exception's unwind the frames found are back already,
	 * but not the ones its cleanups entered since: those, and only
	 * those, swapped again after: they lie above the others) */
	low = shadow_put_back(t);
	rc = f(fn, arg);
	shadow_swap_again(t, low);
	return rc;
}

/* the program's callback, shown the frames from its own on: not this
 * wrapper's */
struct program_walk {
	_Unwind_Trace_Fn fn;
	void *arg;
	int skip;
};

static _Unwind_Reason_Code program_step(struct _Unwind_Context *c, void *arg)
{
	struct program_walk *w = arg;
	if (w->skip) {
		w->skip--;
		return _URC_NO_REASON;
	}
	return w->fn(c, w->arg);
}

FNT_EXPORT __attribute__((noinline)) _Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn fn, void *arg)
{
	struct program_walk w = { fn, arg, 1 };
	return walk_real(&fnt_self, program_step, &w);
}

struct backtrace_walk {
	void **pc;
	int size, n;        /* n starts at -1: the first frame is backtrace's own */
};

static _Unwind_Reason_Code backtrace_step(struct _Unwind_Context *c, void *arg)
{
	struct backtrace_walk *w = arg;
	if (w->n >= 0)
		w->pc[w->n] = (void *)_Unwind_GetIP(c);
	if (++w->n == w->size)
		return _URC_END_OF_STACK;
	return _URC_NO_REASON;
}

FNT_EXPORT __attribute__((noinline)) int backtrace(void **pc, int size)
{
	struct backtrace_walk w = { pc, size, -1 };
	if (size <= 0)
		return 0;
	walk_real(&fnt_self, backtrace_step, &w);
	if (w.n > 1 && !w.pc[w.n - 1])
		w.n--;          /* the outermost frame may have no return address */
	return w.n > 0 ? w.n : 0;
}

/* pthread_exit (and so a thread's cancellation cleanup in C++ or
 * -fexceptions code) unwinds with a forced unwind that glibc starts through
 * its own pointer into libgcc, past our _Unwind_ForcedUnwind stub: it would
 * stop at the first swapped return address and skip the cleanup handlers
 * above it.  So the real return addresses go back first, as the stub would
 * have put them; then, as in an exception's unwind, each landing pad
 * (_Unwind_SetIP) records the frames below it as unwound, so that a
 * cleanup's destructors nest in the frame that owns their objects, and
 * the thread's end closes the frames no cleanup reached.  (They were all
 * recorded as unwound here once: every destructor then came after the
 * thread's outermost frame had closed.) */
FNT_EXPORT __attribute__((noreturn)) void pthread_exit(void *retval)
{
	static void (*real)(void *);
	struct fnt_thread *t = &fnt_self;
	void (*f)(void *) = __atomic_load_n(&real, __ATOMIC_RELAXED);

	if (!f) {
		f = (void (*)(void *))dlsym(RTLD_NEXT, "pthread_exit");
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	unwind_start(t);
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
