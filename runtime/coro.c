/*
 * coro.c - coroutines (makecontext/swapcontext/setcontext, hand-written
 * stack switches, fibers moved between threads): one shadow stack per
 * machine stack, and a SWITCH record (FNT_EXT_SWITCH) in the trace at each
 * switch, so that the frames of a suspended coroutine stay open, in the
 * runtime and in the reader, until it resumes and returns.
 *
 * A stack is named by its top (uc_stack.ss_sp + ss_size of the context
 * makecontext was given), or by the first stack pointer seen on it (a
 * hand-written switch, below); 0 is the thread's own stack.  Which stack a
 * ucontext resumes on is kept in a process-wide table: makecontext (the
 * stub in arch/x86_64/coro.S) enters the context's new stack, swapcontext
 * enters the stack it leaves for the context it saves into.  A context
 * the table does not know (getcontext on the current stack) switches
 * nothing.  A coroutine that returns goes to its uc_link inside libc,
 * unseen: -pg/patchable exits find their stack by their slot
 * (fnt_coro_find_slot, from the return trampoline), and the reader's call
 * layer looks for an exit's frame on the parked stacks the same way.
 *
 * The stacks not in use are parked in one process-wide registry, not per
 * thread, because a fiber scheduler may resume a stack on another thread
 * than the one that left it (work stealing): that thread takes the stack
 * over, with its shadow stack, its window of stack pointers and its open
 * frames, whose returns then go through it and are recorded there.  The
 * thread writes a STACK_MOVED meta record (which thread left it, how many
 * calls are open on it) so that the reader can end those calls on the
 * first thread and take their returns on the second.  The registry is a
 * fixed table of slots, each a word (generation, state) that a
 * compare-and-swap moves from FREE to BUSY (being written or read) to
 * HELD and back: no lock, so a signal handler, a thread that stops in the
 * middle, or a fork never leaves anyone waiting (a fork's child frees the
 * slots other threads were busy with).  A parked stack is found by its name
 * (hashed), or, for hand-written switches and returns, by a scan of the
 * slots in use (a bitmap of them).  A thread's own stack is parked under a key only that
 * thread makes (stk_own), and leaves the registry when the thread exits;
 * the other stacks stay parked as long as no one takes them, whoever
 * parked them and whatever became of that thread.  A vfork child, which
 * shares its parent's memory, leaves the registry alone.
 *
 * Stacks switched by code of the program's own (Boost.Context's
 * assembly, green threads) are found by the stack pointer instead: the
 * hooks take an event when it lies in a window around the stack pointers
 * seen on the stack in use (fnt_stack_check, runtime.h); anything else
 * comes here (fnt_stack_moved).  Within STACK_JUMP of them it is the same
 * stack, deeper or shallower, unless a parked stack's own pointers take it;
 * farther, the thread has switched stacks, to the parked stack whose
 * pointers lie nearest, or to a new one named by the first stack pointer
 * seen on it.  A function whose frame is bigger than STACK_JUMP makes its
 * callees look like another stack: harmless, since the thread switches
 * back when they return (two SWITCH records).  Stacks nearer to each other
 * than STACK_JUMP are told apart only once each has been seen.  When a
 * thread left a stack by such a switch and made no event since, the stack
 * is not parked yet: another thread that resumes it meanwhile finds the
 * real return addresses of its frames on the first thread's shadow stack
 * (fnt_coro_borrow) and the stack's trace goes on under a new name.
 *
 * A stack pointer new to the window, near or far, may also be another
 * context running on this thread's TLS (a child cloned with CLONE_VM and
 * without CLONE_SETTLS by a raw system call, which no wrapper saw): the
 * thread id tells.  One that runs on the thread's own stack (a hand-made
 * vfork) is found by the pause before its first event instead
 * (fnt_foreign_event).  Such a context must not touch the thread's state:
 * its events are counted as lost and it writes nothing but the window (it
 * empties it) and where its own stack pointers lie, which the window
 * leaves out from then on (foreign_zone).  And since the thread's own
 * events may come between a clone and its child's first (a library call
 * like waitpid), the thread's first event after a pause long enough for a
 * clone raises the window's floor to just below itself: a child's stack,
 * which must lie below anything its parent still uses, is then out of it,
 * and the thread's own deeper calls lower it again at the price of one
 * thread id check.
 *
 * None of this is on the hot path: only the wrappers, the exit
 * trampoline's rare path (a slot not at the top of the shadow stack), and
 * the hooks' rare path when the stack pointer leaves its window.
 */
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "runtime/runtime-internal.h"

#define STACK_JUMP (32u << 10)   /* farther than this from the stack in use: another stack */
#define STACK_SLACK (8u << 10)   /* the hooks' window: the pointers seen, and this around them */
/* around the stack pointers seen of a context on the thread's TLS that is
 * not the thread: its frames above the first event seen, the hooks' below */
#define FOREIGN_ABOVE (1u << 10)
#define FOREIGN_BELOW 512u

/* ---- the registry of parked machine stacks ---- */

#define PARK_MAX FNT_CORO_STACKS  /* stacks parked at once, per process */
#define UNTRACKED ((uintptr_t)-1)  /* a stack the registry had no room for (no stack is named so) */
#define RUNNERS_MAX 1024u        /* threads that switch stacks, at once */
#define NO_SERIAL UINT32_MAX

/* the slot word: generation << 2 | state; 0: never used (ends a probe) */
enum { PARK_FREE = 1, PARK_BUSY = 2, PARK_HELD = 3 };

/* what a machine stack carries while no thread runs on it */
struct stack_state {
	uint64_t key;            /* its name; a thread's own stack: ~token (top bit set) */
	uintptr_t id;            /* its name in SWITCH records (0: a thread's own) */
	uintptr_t was;           /* its name in the records of the thread that parked it */
	struct fnt_shadow_entry *ss;
	uint32_t top, cap;
	uintptr_t min, max;      /* stack pointers seen on it */
	uintptr_t top_slot;      /* ss[top - 1].slot, 0 when top is 0 */
	int32_t frames;          /* calls open on it (written ones) */
	int32_t base;            /* the depth below them, in the counter of the thread that parked it */
	uint32_t pid, serial;    /* that thread (NO_SERIAL: not registered) */
	uint32_t tid;
	struct fnt_filter_park flt;   /* the record-time filters' state on it (filter.c) */
	uintptr_t from;          /* the stack it was last entered from, and the calls open there then */
	int32_t from_h;
	int32_t closed;          /* no call open, every frame closed by a jump that left it (fentry.c) */
	int32_t below;           /* the written calls open under it when a thread first entered it */
};
/* a thread's held stack (switch_stacks) lives in its state */
_Static_assert(sizeof(struct stack_state) <= sizeof(((struct fnt_thread *)0)->stk_held), "stk_held too small");
#define HELD(t) ((struct stack_state *)(void *)(t)->stk_held)

static struct {
	uint64_t word;
	struct stack_state s;
} park[PARK_MAX];
/* the slots holding a stack, or being filled or emptied, one bit each (so
 * that a scan looks at those only).  A bit is changed only by whoever holds
 * its slot busy. */
static uint64_t park_bits[PARK_MAX / 64];
static uint64_t own_next;    /* the last token made for a thread's own stack, or name (below) */

/* the threads that switched stacks, for fnt_coro_borrow (slot index + 1 in stk_runner) */
static struct fnt_thread *runners[RUNNERS_MAX];
/* per runner: the name of the stack it left unseen that another thread
 * took last (left_unseen), so that it is told once */
static uintptr_t unseen_taken[RUNNERS_MAX];

static uint32_t park_hash(uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (PARK_MAX - 1);
}

static int park_claim(uint32_t k, uint64_t w)
{
	return __atomic_compare_exchange_n(&park[k].word, &w, ((w >> 2) + 1) << 2 | PARK_BUSY, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static void park_set(uint32_t k, unsigned state)
{
	uint64_t w = __atomic_load_n(&park[k].word, __ATOMIC_RELAXED);
	__atomic_store_n(&park[k].word, ((w >> 2) + 1) << 2 | state, __ATOMIC_RELEASE);
}

/* A field of a HELD slot read before it is claimed: a racing claim makes
 * the claim that follows fail, and the value is not used then. */
#define PEEK(k, f) __atomic_load_n(&park[k].s.f, __ATOMIC_RELAXED)

/* A name for a stack that had none to share (a thread's own, as far as it
 * knew): one that no stack address below 2^55 can be, and that a varint
 * holds (FNT_VARINT_MAX) */
static uintptr_t fresh_name(void)
{
	return 1ull << 55 | (__atomic_add_fetch(&own_next, 1, __ATOMIC_RELAXED) & ((1ull << 55) - 1));
}

static uint64_t own_key(struct fnt_thread *t)
{
	if (!t->stk_own)
		t->stk_own = __atomic_add_fetch(&own_next, 1, __ATOMIC_RELAXED);
	return ~t->stk_own;
}

static void park_bit(uint32_t k, int on)
{
	uint64_t bit = 1ull << (k & 63);
	if (on)
		__atomic_fetch_or(&park_bits[k >> 6], bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&park_bits[k >> 6], ~bit, __ATOMIC_RELAXED);
}

/* the first slot at or after k whose bit is set, or PARK_MAX */
static uint32_t park_next(uint32_t k)
{
	while (k < PARK_MAX) {
		uint64_t b = __atomic_load_n(&park_bits[k >> 6], __ATOMIC_RELAXED) >> (k & 63);
		if (b)
			return k + (uint32_t)__builtin_ctzll(b);
		k = (k | 63) + 1;
	}
	return PARK_MAX;
}

static void park_fill(uint32_t k, const struct stack_state *s)
{
	park[k].s = *s;
	park_bit(k, 1);
	park_set(k, PARK_HELD);
}

/* Park s; its slot, or -1 when every slot holds a stack with frames open.
 * A stack parked with none (a finished coroutine's, most likely) gives its
 * slot up when there is no other; its shadow array goes. */
static int park_put(const struct stack_state *s)
{
	uint32_t h = park_hash(s->key), evict = UINT32_MAX;
	uint64_t evict_w = 0;
	for (uint32_t i = 0; i < PARK_MAX; i++) {
		uint32_t k = (h + i) & (PARK_MAX - 1);
		uint64_t w = __atomic_load_n(&park[k].word, __ATOMIC_ACQUIRE);
		if ((w & 3) == PARK_HELD) {
			/* (a stack whose frames a jump closed as it left it for
			 * good, as a finished coroutine's, goes as well: its
			 * frames are buried, as they were before they were kept) */
			if (evict == UINT32_MAX && (!PEEK(k, top) || PEEK(k, closed)) && !(PEEK(k, key) >> 63)) {
				evict = k;
				evict_w = w;
			}
			continue;
		}
		if ((w == 0 || (w & 3) == PARK_FREE) && park_claim(k, w)) {
			park_fill(k, s);
			return (int)k;
		}
	}
	if (evict == UINT32_MAX || (fnt_no_clock && park[evict].s.ss) || !park_claim(evict, evict_w))
		return -1;      /* (seccomp strict: no munmap, clock.c) */
	if (park[evict].s.ss) {
		fnt_shadow_bury(park[evict].s.ss, park[evict].s.top);
		munmap(park[evict].s.ss, (size_t)park[evict].s.cap * sizeof(struct fnt_shadow_entry));
	}
	fnt_filter_park_drop(&park[evict].s.flt);
	park_fill(evict, s);
	return (int)evict;
}

/* take the stack in slot k, whose word was w, out of the registry: 1, or 0
 * if someone else changed the slot first */
static int park_take(uint32_t k, uint64_t w, struct stack_state *out)
{
	if (!park_claim(k, w))
		return 0;
	*out = park[k].s;
	park_bit(k, 0);
	park_set(k, PARK_FREE);
	return 1;
}

/* The slot holding the stack parked under key, and its word in *wp, or
 * UINT32_MAX */
static uint32_t park_find(uint64_t key, uint64_t *wp)
{
	uint32_t h = park_hash(key);
	for (uint32_t i = 0; i < PARK_MAX; i++) {
		uint32_t k = (h + i) & (PARK_MAX - 1);
		uint64_t w = __atomic_load_n(&park[k].word, __ATOMIC_ACQUIRE);
		if (!w)
			break;
		if ((w & 3) == PARK_HELD && PEEK(k, key) == key) {
			*wp = w;
			return k;
		}
	}
	return UINT32_MAX;
}

/* ...taken out of the registry */
static int park_take_key(uint64_t key, struct stack_state *out)
{
	uint64_t w;
	uint32_t k;
	while ((k = park_find(key, &w)) != UINT32_MAX)
		if (park_take(k, w, out))
			return 1;       /* (else changed meanwhile: look again) */
	return 0;
}

/* The stack that parked stack `stack` was last entered from, and the
 * calls open there then (setjmp.c: a jump out of a coroutine that a
 * handler on a sigaltstack entered, back to where the handler ran): 1, or
 * 0 when it is not parked.  A read of the slot that another thread may
 * change meanwhile: the word is checked again after. */
int fnt_coro_entered_from(uintptr_t stack, uintptr_t *from, int32_t *from_h)
{
	uint64_t w;
	uint32_t k = park_find(stack, &w);
	if (k == UINT32_MAX)
		return 0;
	*from = PEEK(k, from);
	*from_h = PEEK(k, from_h);
	return __atomic_load_n(&park[k].word, __ATOMIC_ACQUIRE) == w;
}

/* The parked stack that sp is on: one whose stack pointers take sp (with
 * the slack), this thread's first; else, when `far`, the one of this
 * thread's whose pointers lie nearest, within STACK_JUMP.  Its slot and
 * word, or UINT32_MAX; *other: it was parked by another thread (a fiber
 * moved, or a thread whose first event was on a fiber took that stack for
 * its own), which park_other_ok() must confirm. */
static uint32_t park_near(const struct fnt_thread *t, uintptr_t sp, int far, uint64_t *wp, int *other)
{
	/* first the stack this thread left last (two coroutines taking turns):
	 * if sp lies among its pointers, no scan */
	if (t->stk_hint) {
		uint32_t k = t->stk_hint - 1;
		uint64_t w = __atomic_load_n(&park[k].word, __ATOMIC_ACQUIRE);
		if ((w & 3) == PARK_HELD && PEEK(k, tid) == t->tid && sp >= PEEK(k, min) && sp <= PEEK(k, max)) {
			*wp = w;
			*other = 0;
			return k;
		}
	}
	uint32_t in_mine = UINT32_MAX, in_other = UINT32_MAX, near = UINT32_MAX;
	uintptr_t d_mine = UINTPTR_MAX, d_other = UINTPTR_MAX, d_near = STACK_JUMP + 1;
	uint64_t w_mine = 0, w_other = 0, w_near = 0;
	for (uint32_t k = park_next(0); k < PARK_MAX; k = park_next(k + 1)) {
		uint64_t w = __atomic_load_n(&park[k].word, __ATOMIC_ACQUIRE);
		if ((w & 3) != PARK_HELD)
			continue;
		uintptr_t lo = PEEK(k, min), hi = PEEK(k, max);
		if (!hi)
			continue;
		uintptr_t d = sp < lo ? lo - sp : sp > hi ? sp - hi : 0;
		int mine = PEEK(k, tid) == t->tid;
		if (d <= STACK_SLACK) {
			if (mine && d < d_mine)
				in_mine = k, d_mine = d, w_mine = w;
			else if (!mine && d < d_other)
				in_other = k, d_other = d, w_other = w;
		} else if (far && mine && d < d_near) {
			near = k, d_near = d, w_near = w;
		}
	}
	*other = 0;
	if (in_mine != UINT32_MAX) {
		*wp = w_mine;
		return in_mine;
	}
	if (in_other != UINT32_MAX) {
		*wp = w_other;
		*other = 1;
		return in_other;
	}
	*wp = w_near;
	return near;
}

/* A stack another thread parked is taken only if this thread is not on its
 * signal stack: signal stacks of two threads may lie close together, and a
 * handler's stack is never a fiber's. */
static int park_other_ok(void)
{
	stack_t ss;
	return fnt_sys3(SYS_sigaltstack, 0, (long)&ss, 0) || !(ss.ss_flags & SS_ONSTACK);
}

/* fnt_coro_borrow's list: a thread adds itself when it gets a shadow
 * stack (fentry.c) or switches stacks */
void fnt_coro_runner(struct fnt_thread *t)
{
	if (t->stk_runner || t->file)
		return;         /* (a vfork child's state is its parent thread's) */
	for (uint32_t i = 0; !t->stk_runner && i < RUNNERS_MAX; i++) {
		struct fnt_thread *none = NULL;
		if (__atomic_compare_exchange_n(&runners[i], &none, t, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
			__atomic_store_n(&unseen_taken[i], 0, __ATOMIC_RELAXED);
			t->stk_runner = i + 1;
		}
	}
	/* it leaves the list when it exits (threads.c), registered or not */
	if (t->stk_runner && t->state != FNT_T_ACTIVE)
		pthread_setspecific(thread_key, t);
}

/* the hooks' window from the pointers seen on the stack in use; an empty
 * one (none seen yet) sends the next event here.  It stops short of the
 * stack pointers another context on this TLS used (foreign_zone), so that
 * its events keep meeting the thread id check. */
static void window_set(struct fnt_thread *t, uintptr_t min, uintptr_t max)
{
	uintptr_t lo = min - STACK_SLACK, hi = max + STACK_SLACK;
	uintptr_t flo = __atomic_load_n(&t->fgn_lo, __ATOMIC_RELAXED), fhi = __atomic_load_n(&t->fgn_hi, __ATOMIC_RELAXED);
	if (fhi && fhi < min && lo <= fhi)
		lo = fhi + 1;           /* its stack lies below the thread's */
	else if (fhi && flo > max && hi >= flo)
		hi = flo - 1;           /* ...above */
	t->stk_min = min;
	t->stk_max = max;
	t->stk_lo = max ? lo : 0;
	t->stk_span = max ? hi - lo : 0;
}

/* the window of the stack in use, widened to take sp in */
static void window_take(struct fnt_thread *t, uintptr_t sp)
{
	window_set(t, t->stk_max && t->stk_min < sp ? t->stk_min : sp, t->stk_max > sp ? t->stk_max : sp);
}

/* A context on this thread's TLS that is not the thread (a raw CLONE_VM
 * child running beside it) has an event at stack pointer sp: the window
 * leaves its stack pointers out from now on, even once the thread's own
 * events have filled it again, until the thread itself runs there (then
 * the other context is gone: fnt_stack_moved).  Written by that context,
 * in the thread's state: two words, read by the thread only to bound its
 * window. */
static void foreign_zone(struct fnt_thread *t, uintptr_t sp)
{
	uintptr_t lo = __atomic_load_n(&t->fgn_lo, __ATOMIC_RELAXED), hi = __atomic_load_n(&t->fgn_hi, __ATOMIC_RELAXED);
	if (!hi || sp - FOREIGN_BELOW < lo)
		__atomic_store_n(&t->fgn_lo, sp - FOREIGN_BELOW, __ATOMIC_RELAXED);
	if (sp + FOREIGN_ABOVE > hi)
		__atomic_store_n(&t->fgn_hi, sp + FOREIGN_ABOVE, __ATOMIC_RELAXED);
}

/* what a parked stack tells the trace when it comes to another thread */
struct stack_moved {
	uint32_t from;           /* NO_SERIAL: nothing to tell */
	int32_t frames;
	uintptr_t was;
};

/* run on next: its shadow stack, window and open calls become the thread's */
static void run_on(struct fnt_thread *t, uintptr_t to, struct stack_state *next)
{
	t->ss = next->ss;
	t->ss_top = next->top;
	t->ss_cap = next->cap;
	window_set(t, next->min, next->max);
	fnt_filter_unpark(t, &next->flt);
	t->stk_base = t->depth - next->frames;
	if (next->top && next->base != t->stk_base)
		for (uint32_t i = 0; i < next->top; i++)     /* depths in this thread's counter */
			next->ss[i].depth += t->stk_base - next->base;
	t->stk_cur = to;
	t->stk_below = to ? next->below : 0;
	/* a jump from another stack landed here (setjmp.c): this stack's
	 * depths and count go back to its buffer's.  Kept over switches to
	 * other stacks (a signal handler on a sigaltstack) until the thread is
	 * found on this one: no hook ran here since it landed */
	if (t->jmp_pend.set && t->jmp_pend.stk == to) {
		if (t->jmp_pend.off)
			fnt_off_restore(t, t->jmp_pend.epoch, t->jmp_pend.rel);
		/* the written calls above the buffer: closed by an UNWIND
		 * after this switch's record (switch_with) */
		t->jmp_pend.land = next->frames - t->jmp_pend.h;
		fnt_filter_longjmp(t, t->jmp_pend.fdepth);
		/* (the frames the jump left on this stack: not popped again,
		 * and the filters' depth not lowered again, at a return) */
		fnt_shadow_cut(t, t->jmp_pend.ss_top);
		t->jmp_pend.set = 0;
	}
}

/* Make stack `to` the running one: park the thread's shadow stack,
 * stack-pointer window and open calls under the current one and take out
 * the other's (parked by this thread or another); 1 if it switched (a
 * SWITCH record is due).
 *
 * When every slot of the registry holds a stack with calls open on it,
 * the stack being left cannot be parked: the thread holds it in its own
 * state (stk_held) and runs on UNTRACKED: no shadow stack, an empty
 * window, so that every event reaches fnt_stack_moved, which drops and
 * counts it (FNT_LOST_STACKS) until the thread is back on the held stack
 * or on a parked one.  Its -pg/patchable calls are never swapped there, so
 * no return can miss its frame.  A context saved while UNTRACKED resumes
 * UNTRACKED too. */
static int switch_stacks(struct fnt_thread *t, uintptr_t to, const struct stack_state *taken,
			 struct stack_moved *mv)
{
	struct stack_state cur, next, *held = HELD(t);
	int registered = t->state == FNT_T_ACTIVE, untracked = t->stk_cur == UNTRACKED;
	uintptr_t from = t->stk_cur;
	int32_t from_h = fnt_stack_calls(t);

	mv->from = NO_SERIAL;
	if ((t->stk_cur == to && !taken) || t->file)
		return 0;       /* (a vfork child: the registry is its parent's) */
	fnt_coro_runner(t);
	if (untracked && held->key && !taken && to == held->id) {
		/* back on the stack held: as it was, and no record (the
		 * trace never left it) */
		next = *held;
		held->key = 0;
		run_on(t, to, &next);
		return 0;
	}
	memset(&cur, 0, sizeof(cur));
	if (!untracked) {
		cur.key = t->stk_cur ? t->stk_cur : own_key(t);
		cur.id = cur.was = t->stk_cur;
		cur.ss = t->ss;
		cur.top = t->ss_top;
		cur.cap = t->ss_cap;
		cur.top_slot = t->ss_top ? t->ss[t->ss_top - 1].slot : 0;
		cur.min = t->stk_min;
		cur.max = t->stk_max;
		cur.base = t->stk_base;
		cur.frames = t->depth > t->stk_base ? t->depth - t->stk_base : 0;
		cur.pid = t->pid;
		cur.serial = registered ? t->serial : NO_SERIAL;
		cur.tid = t->tid;
		cur.from = t->stk_from;
		cur.from_h = t->stk_from_h;
		cur.closed = !cur.frames && cur.top && fnt_shadow_all_closed(t);
		cur.below = t->stk_below;
		fnt_filter_park(t, &cur.flt);
	}
	if (taken) {
		next = *taken;
	} else if (to == UNTRACKED || !park_take_key(to ? to : own_key(t), &next)) {
		memset(&next, 0, sizeof(next));     /* a stack new to the registry */
		next.serial = NO_SERIAL;
		/* its calls begin above those open where it is entered */
		next.below = untracked ? 0 : t->stk_below + cur.frames;
	}
	if (!next.frames && !untracked && to != UNTRACKED)
		/* nothing open on it: entered anew, its calls begin above those
		 * open where it is entered now (a handler's sigaltstack, entered
		 * at each signal from wherever the thread was: it kept the depth
		 * of its first entry, and showed its handlers too deep or too
		 * shallow, and the calls after them too) */
		next.below = t->stk_below + cur.frames;
	int k = 0;
	if (!untracked)
		k = park_put(&cur);
	else if (held->key && (k = park_put(held)) >= 0)
		held->key = 0;
	if (k < 0 || to == UNTRACKED) {
		/* every slot holds a stack with frames (or a context saved
		 * while untracked): hold the stack left, run untracked; the
		 * other goes back (a slot it left just now, unless another
		 * thread filled it meanwhile: its calls are then left as they
		 * are, and a -pg return there has no address to go on) */
		if (k < 0 && !untracked)
			*held = cur;
		if (next.key)
			(void)park_put(&next);
		if (!untracked) {
			t->stk_hint = k >= 0 ? (uint32_t)k + 1 : 0;
			t->ss = NULL;
			t->ss_top = t->ss_cap = 0;
			t->flt.hbits = NULL;    /* (the stack left, held or parked, has them) */
			window_set(t, 0, 0);
			t->stk_cur = UNTRACKED;
		}
		return 0;
	}
	if (!untracked)
		t->stk_hint = (uint32_t)k + 1;
	if (t->stk_runner)      /* (a stack it leaves unseen from now on is told again: left_unseen) */
		__atomic_store_n(&unseen_taken[t->stk_runner - 1], 0, __ATOMIC_RELAXED);
	run_on(t, to, &next);
	t->stk_from = from;
	t->stk_from_h = from_h;
	if (to && registered && next.serial != NO_SERIAL && next.pid == t->pid && next.serial != t->serial &&
	    next.frames > 0) {
		mv->from = next.serial;
		mv->frames = next.frames;
		mv->was = next.was;
	}
	return 1;
}

/* A handler that lands in a switch and leaves by a siglongjmp would leave
 * it half made, the guard held for good: the thread recorded nothing more.
 * Once the program is seen to jump out of handlers, a switch blocks the
 * asynchronous signals while it runs (two system calls; not before: a
 * coroutine switch costs about 300 ns here): 1 if they were blocked */
static int switch_block(uint64_t *was)
{
	return __atomic_load_n(&fnt_handler_jumps, __ATOMIC_RELAXED) && fnt_async_block(was);
}

/* ...under the guard, so that a signal handler that lands meanwhile pushes
 * nothing onto a half-switched stack (its calls are dropped and counted);
 * the records are written unless the guard was held already (a handler
 * inside a hook).  taken: the stack, already out of the registry.  Its
 * caller blocks the signals first (switch_block). */
static void switch_with(struct fnt_thread *t, uintptr_t to, const struct stack_state *taken, uintptr_t sp,
			const struct stack_moved *unseen)
{
	uint32_t held = t->busy;
	struct stack_moved mv;
	t->busy = FNT_BUSY_RUNTIME;
	__asm__ volatile("" ::: "memory");
	t->jmp_pend.land = 0;
	if (switch_stacks(t, to, taken, &mv) && !held) {
		if (mv.from == NO_SERIAL && unseen && t->state == FNT_T_ACTIVE)
			mv = *unseen;   /* a stack another thread left unseen (left_unseen) */
		if (mv.from != NO_SERIAL) {
			struct fnt_meta_stack_moved m = {
				.ticks = fnt_now(), .stack = to, .from_stack = mv.was, .from = mv.from,
				.to = t->serial, .frames = (uint32_t)mv.frames,
			};
			fnt_meta_append(FNT_META_STACK_MOVED, &m, sizeof(m), NULL, 0);
		}
		fnt_put_switch(t, to);
		/* a jump from another stack landed here: the calls it left
		 * on this one (setjmp.c) */
		if (t->jmp_pend.land > 0 && mv.from == NO_SERIAL)
			fnt_put_unwind(t, (uint32_t)t->jmp_pend.land);
	}
	t->jmp_pend.land = 0;
	/* sp (a hook's, on the stack switched to) goes into its window in
	 * the same turn of the guard.  Set after it, a handler on a
	 * sigaltstack that landed between (where the blocked signals are
	 * delivered) switched to its stack and back, and sp went into the
	 * signal stack's window: the thread's calls were then taken as on
	 * that stack, their frames pushed on its shadow stack, and a -pg
	 * program's returns found no address (it aborted, or crashed) */
	if (sp && t->stk_cur != UNTRACKED)
		window_take(t, sp);
	__asm__ volatile("" ::: "memory");
	t->busy = held;
}

static void switch_to_from(struct fnt_thread *t, uintptr_t to, uintptr_t sp, const struct stack_moved *unseen)
{
	uint64_t was;
	int blocked = switch_block(&was);
	switch_with(t, to, NULL, sp, unseen);
	if (blocked)
		fnt_async_unblock(&was);
}

static void switch_to(struct fnt_thread *t, uintptr_t to, uintptr_t sp)
{
	switch_to_from(t, to, sp, NULL);
}

/* take the stack in slot k (word w) and run on it: 1, or 0 if another
 * thread took it first.  The signals are blocked from the take on: the
 * stack, once out of the registry (or its slot claimed), is nowhere but
 * here until the switch is made, and a handler on a sigaltstack that
 * landed between and jumped out lost it: its slot busy for good, or its
 * state, the thread's own stack's (its shadow stack and open calls) with
 * it.  The thread then took its own stack for a new one: the frames the
 * jumps left there were never closed (the jump's landing waits for stack
 * 0), and a -pg return of a frame on the lost shadow stack found no
 * address, "shadow stack out of sync" */
static int switch_to_slot(struct fnt_thread *t, uint32_t k, uint64_t w, uintptr_t sp)
{
	struct stack_state s;
	uint64_t was;
	int blocked, ok = 0;
	if (t->file)
		return 0;
	blocked = switch_block(&was);
	if (park_take(k, w, &s)) {
		if ((s.key >> 63) && s.key != own_key(t)) {
			/* another thread's "own" stack, which turns out to be a
			 * fiber's (park_near): from now on a stack of its own name */
			s.id = s.key = fresh_name();
		}
		switch_with(t, s.id, &s, sp, NULL);
		ok = t->stk_cur == s.id;        /* (else no room to park the stack in use: s went back) */
	}
	if (blocked)
		fnt_async_unblock(&was);
	return ok;
}

/* Read n bytes at p without ever faulting: a parked stack's shadow array
 * or another thread's state may be unmapped by its owner meanwhile. */
static int read_safe(void *buf, const void *p, size_t n)
{
	return fnt_read_self(buf, p, n) == (long)n ? 0 : -1;
}

/* the index + 1 of the innermost frame of ss[0, top) whose return address
 * is at slot, copied into *found; 0 if none */
static uint32_t holds_slot(const struct fnt_shadow_entry *ss, uint32_t top, uintptr_t slot,
			   struct fnt_shadow_entry *found)
{
	struct fnt_shadow_entry buf[64];
	while (top) {
		uint32_t n = top < 64 ? top : 64;
		top -= n;
		if (read_safe(buf, ss + top, n * sizeof(buf[0])))
			return 0;
		for (uint32_t i = n; i-- > 0;)
			if (buf[i].slot == slot) {
				if (found)
					*found = buf[i];
				return top + i + 1;
			}
	}
	return 0;
}

/* An exit whose slot is not on the current shadow stack: a coroutine
 * finished and libc went to its uc_link, or a fiber came here from another
 * thread.  Switch to the parked stack whose top frame has that slot; else
 * to one that has it deeper (the frames above it were left unseen: the
 * return trampoline drops them as unwound); 1 if there is one. */
int fnt_coro_find_slot(struct fnt_thread *t, uintptr_t slot)
{
	struct stack_state *held = HELD(t);
	if (t->stk_cur == UNTRACKED && held->key && held->top && holds_slot(held->ss, held->top, slot, NULL)) {
		switch_to(t, held->id, 0);  /* (a coroutine run untracked went to its uc_link) */
		return 1;
	}
	for (int deep = 0; deep < 2; deep++) {
		for (uint32_t k = park_next(0); k < PARK_MAX; k = park_next(k + 1)) {
			uint64_t w = __atomic_load_n(&park[k].word, __ATOMIC_ACQUIRE);
			if ((w & 3) != PARK_HELD || !PEEK(k, top))
				continue;
			if (deep ? !holds_slot(PEEK(k, ss), PEEK(k, top), slot, NULL) : PEEK(k, top_slot) != slot)
				continue;
			if (switch_to_slot(t, k, w, 0))
				return 1;
			/* (taken meanwhile, by a thread that has it now) */
		}
	}
	return 0;
}

/* The frame is taken out of the other thread's shadow stack: its slot
 * becomes 0, which no return matches, and it no longer counts as written
 * (so that dropping it records nothing).  That thread is not on this
 * machine stack (this one is), so it neither pushes nor pops there; an
 * entry below its top is never unmapped while it is there. */
int fnt_coro_borrow(const struct fnt_thread *t, uintptr_t slot, struct fnt_shadow_entry *e)
{
	for (uint32_t i = 0; i < RUNNERS_MAX; i++) {
		struct fnt_thread *o = __atomic_load_n(&runners[i], __ATOMIC_ACQUIRE);
		struct { struct fnt_shadow_entry *ss; uint32_t top, cap; } st;
		uint32_t at;
		if (!o || o == t)
			continue;
		_Static_assert(offsetof(struct fnt_thread, ss_top) == offsetof(struct fnt_thread, ss) + 8, "ss, ss_top");
		if (read_safe(&st, &o->ss, sizeof(st)) || !st.ss || st.top > st.cap ||
		    !(at = holds_slot(st.ss, st.top, slot, e))) {
			/* or the stack it holds, the registry being full
			 * (switch_stacks): a fiber it left that this thread resumed */
			struct stack_state h;
			if (read_safe(&h, HELD(o), sizeof(h)) || !h.key || !h.ss || h.top > h.cap ||
			    !(at = holds_slot(h.ss, h.top, slot, e)))
				continue;
			st.ss = h.ss;
		}
		uintptr_t want = slot;
		if (!__atomic_compare_exchange_n(&st.ss[at - 1].slot, &want, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&st.ss[at - 1].written, 0, __ATOMIC_RELAXED);
		return 1;
	}
	return 0;
}

/* The thread exits.  Frames still on its shadow stack may be a fiber's that
 * it left by a hand-written switch and made no event since: another thread
 * may resume that fiber, whose returns need them.  They are parked before
 * the thread leaves the list fnt_coro_borrow looks in, to be found by their
 * slots only (fnt_coro_find_slot): with no stack pointers, so that a thread
 * made later on the same thread stack does not take them for its own. */
void fnt_coro_thread_exit(struct fnt_thread *t)
{
	struct stack_state s, *held = HELD(t);
	if (t->file)
		return;
	if (held->key) {
		if (!held->top || park_put(held) < 0) {
			if (held->ss && !fnt_no_clock)
				munmap(held->ss, (size_t)held->cap * sizeof(struct fnt_shadow_entry));
			fnt_filter_park_drop(&held->flt);
		}
		held->key = 0;
	}
	if (t->ss_top) {
		memset(&s, 0, sizeof(s));
		s.id = s.key = t->stk_cur ? t->stk_cur : fresh_name();
		s.was = t->stk_cur;
		s.ss = t->ss;
		s.top = t->ss_top;
		s.cap = t->ss_cap;
		s.top_slot = t->ss[t->ss_top - 1].slot;
		s.base = t->stk_base;
		s.frames = t->depth > t->stk_base ? t->depth - t->stk_base : 0;
		s.pid = t->pid;
		s.serial = t->state == FNT_T_ACTIVE ? t->serial : NO_SERIAL;
		s.tid = t->tid;
		fnt_filter_park(t, &s.flt);
		if (park_put(&s) >= 0) {
			t->ss = NULL;
			t->ss_top = t->ss_cap = 0;
			t->flt.hbits = NULL;    /* (the stack's now) */
		}
	}
	if (t->stk_runner) {
		__atomic_store_n(&runners[t->stk_runner - 1], NULL, __ATOMIC_RELEASE);
		t->stk_runner = 0;
	}
	if (t->stk_cur && t->stk_own && park_take_key(~t->stk_own, &s)) {
		if (s.ss)
			munmap(s.ss, (size_t)s.cap * sizeof(struct fnt_shadow_entry));
		fnt_filter_park_drop(&s.flt);
	}
}

void fnt_coro_fork_child(void)
{
	struct fnt_thread *t = &fnt_self;
	for (uint32_t k = 0; k < PARK_MAX; k++)
		if ((park[k].word & 3) == PARK_BUSY) {
			park_bit(k, 0);
			park_set(k, PARK_FREE);   /* a switch another thread was making: gone with it */
		}
	memset(runners, 0, sizeof(runners));
	if (t->stk_runner)
		runners[t->stk_runner - 1] = t;
}

/* sp is on the stack in use: take it into the window, under the guard,
 * held as a hook holds it (a jump out of a handler that lands here frees
 * it, setjmp.c: a window left half set is set again at the next event
 * outside it) */
static void window_add(struct fnt_thread *t, uintptr_t sp)
{
	t->busy = 1;
	__asm__ volatile("" ::: "memory");
	window_take(t, sp);
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

void fnt_foreign_lost(unsigned n)
{
	struct fnt_file_header *h = fnt_trace_header();
	if (h)
		__atomic_fetch_add(&h->reserved[FNT_RES_LOST_UNSAFE], n, __ATOMIC_RELAXED);
}

/* An event after a gap in the thread's events (runtime.h, FNT_GAP_TICKS),
 * with the guard held and nothing written yet: the first event of a
 * context that took this thread's place without leaving its stack (a
 * hand-made vfork's child), if the thread id says so.  A vfork child whose
 * parent the kernel shows waiting for it is lent the thread's state
 * (vfork.c, fnt_vfork_adopt: 2).  Any other has its event dropped and
 * counted, and the window emptied, so that each of its next events meets
 * fnt_stack_moved, which drops and counts it before it touches anything;
 * the thread finds the window empty at its next event and fills it again
 * (fnt_stack_moved, same stack).  Costs a gettid after each gap of the
 * thread's own. */
int fnt_foreign_event(struct fnt_thread *t, int is_exit, uint64_t pause)
{
	int unenter = fnt_filtering && !is_exit;
	if (!t->tid)
		return 0;
	if (fnt_gettid() == t->tid) {
		/* The thread, after a pause long enough for it to have cloned
		 * (twice the bound, still under the shortest clone measured): a
		 * child on its TLS may come next, and, this event having just
		 * renewed the time, would not be found by the pause.  Its stack
		 * lies below whatever the thread still uses (this frame
		 * included): the window's floor goes up to just below here, and
		 * the child's first event meets the thread id check
		 * (fnt_stack_moved).  The thread's own calls at this depth pass
		 * as before; a deeper one lowers the floor again. */
		uintptr_t floor = (uintptr_t)__builtin_frame_address(0) - FOREIGN_BELOW, top = t->stk_lo + t->stk_span;
		if (pause >= 2 * (fnt_use_tsc ? FNT_GAP_TICKS : FNT_GAP_NS) && t->stk_span && floor > t->stk_lo &&
		    floor < top) {
			t->stk_lo = floor;
			t->stk_span = top - floor;
			t->stk_raised = 1;
		}
		t->checked_at = fnt_now();
		return 0;
	}
	if (fnt_vfork_adopt(t, unenter))
		return 2;               /* its own state and file now (vfork.c) */
	if (unenter)
		fnt_filter_unenter(&t->flt);
	fnt_foreign_lost(1);
	foreign_zone(t, (uintptr_t)__builtin_frame_address(0));
	t->stk_lo = 0;
	t->stk_span = 0;
	return 1;
}

/* A stack pointer far from every stack this thread knows, on no parked
 * stack: a stack new to the registry, or a fiber that another thread left
 * by a switch in code that is not traced and made no event since, so that
 * it never parked it (its window still holds sp; two threads never run on
 * one stack at once, so it is not there any more).  That thread's trace
 * still has the fiber's calls open: 1 and what the STACK_MOVED record
 * tells, so that the reader ends them there as moved and takes their
 * returns here as returns of calls entered on another thread.  Before, the
 * reader took those returns for calls entered before the process began
 * (and the calls stayed open on the first thread to the end of the trace).
 * Only the other thread's fields are read (read_safe: it may be exiting),
 * twice, and only while it is outside the runtime; its state is not
 * changed (its frames' -pg returns still come through fnt_coro_borrow).
 * Told once per stack left (unseen_taken): a stack freed and made again
 * at the same place would otherwise be told again. */
static int left_unseen(const struct fnt_thread *t, uintptr_t sp, struct stack_moved *mv)
{
	if (t->state != FNT_T_ACTIVE)
		return 0;
	for (uint32_t i = 0; i < RUNNERS_MAX; i++) {
		struct fnt_thread *o = __atomic_load_n(&runners[i], __ATOMIC_ACQUIRE);
		struct {
			uint64_t depth_busy;
			uint32_t ids[4];         /* serial, tid, seq, state */
			uint32_t pid;
			uintptr_t cur;
			int32_t base;
			uintptr_t min, max;
		} a[2];
		uintptr_t win[2];
		if (!o || o == t)
			continue;
		/* first its window alone (stk_min, stk_max: one read): most
		 * threads' do not hold sp */
		_Static_assert(offsetof(struct fnt_thread, stk_max) == offsetof(struct fnt_thread, stk_min) + 8,
			       "left_unseen reads stk_min and stk_max at once");
		if (read_safe(win, &o->stk_min, sizeof(win)) || !win[1] || sp + STACK_SLACK < win[0] ||
		    sp > win[1] + STACK_SLACK)
			continue;
		memset(a, 0, sizeof(a));
		for (int k = 0; k < 2; k++)
			if (read_safe(&a[k].depth_busy, &o->depth_busy, 8) || read_safe(a[k].ids, &o->serial, 16) ||
			    read_safe(&a[k].pid, &o->pid, 4) || read_safe(&a[k].cur, &o->stk_cur, sizeof(uintptr_t)) ||
			    read_safe(&a[k].base, &o->stk_base, 4) || read_safe(&a[k].min, &o->stk_min, sizeof(uintptr_t)) ||
			    read_safe(&a[k].max, &o->stk_max, sizeof(uintptr_t)))
				goto next;
		if (memcmp(&a[0], &a[1], sizeof(a[0])))
			continue;           /* (it ran meanwhile) */
		int32_t depth = (int32_t)(uint32_t)a[0].depth_busy, frames = depth - a[0].base;
		uint32_t busy = (uint32_t)(a[0].depth_busy >> 32);
		if (busy || a[0].ids[3] != FNT_T_ACTIVE || a[0].pid != t->pid || !a[0].cur || a[0].cur == UNTRACKED ||
		    !a[0].max || sp + STACK_SLACK < a[0].min || sp > a[0].max + STACK_SLACK || frames <= 0)
			continue;
		uintptr_t was = __atomic_load_n(&unseen_taken[i], __ATOMIC_RELAXED);
		if (was == a[0].cur ||
		    !__atomic_compare_exchange_n(&unseen_taken[i], &was, a[0].cur, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			continue;
		mv->from = a[0].ids[0];
		mv->frames = frames;
		mv->was = a[0].cur;
		return 1;
	next:;
	}
	return 0;
}

/* A stack pointer out of the hooks' window (see the top of this file). */
int fnt_stack_moved(struct fnt_thread *t, uintptr_t sp, unsigned events)
{
	if (unlikely(fnt_no_clock)) {
		/* seccomp strict: not a system call (gettid) more; the thread
		 * records nothing anyway (clock.c) */
		fnt_lost_events(t, FNT_LOST_NOCLOCK, events);
		return 1;
	}
	if (unlikely(!fnt_fork_mask))
		fnt_raw_fork_check();   /* a raw clone's child: its own file first */
	if (unlikely(t->vfork)) {
		/* a state lent to a hand-made vfork's child: its window stays
		 * empty, so that its parent is found here when it is back */
		int lent = fnt_vfork_lent(t, sp);
		if (lent == 1)
			return 0;
		if (lent < 0) {
			fnt_foreign_lost(events);
			return 1;
		}
	}
	/* Whatever the distance, a stack pointer new to the window may be
	 * another context on this TLS (a raw CLONE_VM child's stack can lie
	 * anywhere, just below the parent's own too): the thread id tells,
	 * before anything of the thread's is touched.  The window grows in
	 * STACK_SLACK steps, so a thread pays this a few times in its life.
	 * The window starts empty, so a thread's first event, written or
	 * not (record-time filters), comes here: it names the thread, before
	 * a child it clones could take its place. */
	uint32_t self = fnt_gettid();
	if (!t->tid) {
		/* named by the thread whose TLS this is (threads.c): a raw
		 * clone's child may be the first to come here */
		t->tid = fnt_tls_owner();
		if (self != t->tid && !t->busy && fnt_vfork_adopt(t, 0)) {
			t->busy = 0;    /* (adopt takes the guard as its callers hold it) */
			return 0;       /* a hand-made vfork's child: its own state and file now (vfork.c) */
		}
	}
	if (self != t->tid) {
		/* not this thread: a context on its TLS, which must leave it
		 * alone.  Below a floor raised after the thread's pause, its
		 * first event would have met fnt_foreign_event without it: a
		 * hand-made vfork's child is lent a state here as there. */
		if (t->stk_raised) {
			t->stk_raised = 0;
			if (!t->busy && fnt_vfork_adopt(t, 0)) {
				t->busy = 0;    /* (adopt takes the guard as its callers hold it) */
				return 0;
			}
		}
		foreign_zone(t, sp);
		fnt_foreign_lost(events);
		return 1;
	}
	if (t->fgn_hi && sp >= t->fgn_lo && sp <= t->fgn_hi)
		t->fgn_lo = t->fgn_hi = 0;     /* the thread runs there: the other context is gone */
	if (t->busy)
		return 0;               /* (a handler inside a hook: the event is dropped anyway) */
	t->stk_raised = 0;
	if (t->stk_cur == UNTRACKED) {
		/* (switch_stacks) back on the stack held, or on a parked one;
		 * else the event is dropped and counted */
		struct stack_state *held = HELD(t);
		uint64_t w;
		int other;
		if (held->key && held->max && sp + STACK_JUMP >= held->min && sp <= held->max + STACK_JUMP) {
			switch_to(t, held->id, sp);
			return 0;
		}
		uint32_t k = park_next(0) < PARK_MAX ? park_near(t, sp, 1, &w, &other) : UINT32_MAX;
		if (k != UINT32_MAX && (!other || park_other_ok()) && switch_to_slot(t, k, w, sp))
			return 0;
		fnt_lost_events(t, FNT_LOST_STACKS, events);
		return 1;
	}
	int near = !t->stk_max || (sp + STACK_JUMP >= t->stk_min && sp <= t->stk_max + STACK_JUMP);
	/* A parked stack may take sp: near the stack in use, one whose own
	 * pointers hold it (two stacks less than STACK_JUMP apart, each seen
	 * before; or, at the thread's first event, a fiber another thread
	 * parked); farther, the nearest within STACK_JUMP.  Else near is the
	 * same stack, deeper or shallower (or the first event), and far a new
	 * one. */
	for (int tries = 0; tries < 4 && park_next(0) < PARK_MAX; tries++) {
		uint64_t w;
		int other;
		uint32_t k = park_near(t, sp, !near, &w, &other);
		if (k == UINT32_MAX || (other && !park_other_ok()))
			break;
		if (switch_to_slot(t, k, w, sp))
			return 0;
	}
	if (!near) {
		struct stack_moved mv;
		switch_to_from(t, sp | 1, sp, left_unseen(t, sp, &mv) ? &mv : NULL);
		if (t->stk_cur == UNTRACKED) {
			/* no slot to park the stack left (switch_stacks) */
			fnt_lost_events(t, FNT_LOST_STACKS, events);
			return 1;
		}
		return 0;
	}
	window_add(t, sp);
	return 0;
}

/* is the thread on a stack other than its own, named in SWITCH records? */
int fnt_coro_named(const struct fnt_thread *t)
{
	return t->stk_cur && t->stk_cur != UNTRACKED;
}

#ifndef FNT_STATIC_ARCHIVE

#define CTX_MAX (2 * PARK_MAX)   /* ucontexts known, per process (open addressing) */

static struct {
	uintptr_t ctx;           /* the ucontext_t's address, 0: free */
	uintptr_t stack;         /* the stack it resumes on */
} ctx_map[CTX_MAX];

static uint32_t ctx_hash(uintptr_t ctx)
{
	return (uint32_t)(((uint64_t)ctx * 0x9E3779B97F4A7C15ull) >> 52) & (CTX_MAX - 1);
}

static void ctx_set(uintptr_t ctx, uintptr_t stack)
{
	uint32_t h = ctx_hash(ctx);
	for (uint32_t i = 0; i < CTX_MAX; i++, h = (h + 1) & (CTX_MAX - 1)) {
		uintptr_t k = __atomic_load_n(&ctx_map[h].ctx, __ATOMIC_ACQUIRE);
		if (!k) {
			uintptr_t zero = 0;
			if (!__atomic_compare_exchange_n(&ctx_map[h].ctx, &zero, ctx, 0, __ATOMIC_ACQ_REL,
							 __ATOMIC_ACQUIRE))
				k = zero;
			else
				k = ctx;
		}
		if (k == ctx) {
			__atomic_store_n(&ctx_map[h].stack, stack, __ATOMIC_RELEASE);
			return;
		}
	}
	/* full: that context switches nothing (-pg exits still find their stack by slot) */
}

static int ctx_get(uintptr_t ctx, uintptr_t *stack)
{
	uint32_t h = ctx_hash(ctx);
	for (uint32_t i = 0; i < CTX_MAX; i++, h = (h + 1) & (CTX_MAX - 1)) {
		uintptr_t k = __atomic_load_n(&ctx_map[h].ctx, __ATOMIC_ACQUIRE);
		if (!k)
			return 0;
		if (k == ctx) {
			*stack = __atomic_load_n(&ctx_map[h].stack, __ATOMIC_ACQUIRE);
			return 1;
		}
	}
	return 0;
}

static void *real_fn(void **cache, const char *name)
{
	void *f = __atomic_load_n(cache, __ATOMIC_RELAXED);
	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, f, __ATOMIC_RELAXED);
	}
	return f;
}

static void *real_make, *real_swap, *real_set;

/* from the makecontext stub: the context now starts on its own stack */
void *fnt_coro_made(ucontext_t *ucp) FNT_HIDDEN;
void *fnt_coro_made(ucontext_t *ucp)
{
	if (ucp && ucp->uc_stack.ss_sp)
		ctx_set((uintptr_t)ucp, (uintptr_t)ucp->uc_stack.ss_sp + ucp->uc_stack.ss_size);
	return real_fn(&real_make, "makecontext");
}

/* sp among the stack pointers seen on the stack in use, with the slack:
 * the window's range, whatever was done to the window meanwhile (emptied
 * or its floor raised: fnt_foreign_event) */
static int on_stack_in_use(const struct fnt_thread *t, uintptr_t sp)
{
	return t->stk_max && sp + STACK_SLACK >= t->stk_min && sp <= t->stk_max + STACK_SLACK;
}

/* Enter ucp: a context the table knows switches stacks.  One it does not
 * know, whose stack pointer lies on the stack in use (the hooks' window),
 * was saved there by getcontext: going back to it leaves the frames since,
 * as a longjmp does (setjmp.c). */
static void enter_ctx(struct fnt_thread *t, const ucontext_t *ucp)
{
	uintptr_t to;
	if (!ucp)
		return;
	if (ctx_get((uintptr_t)ucp, &to))
		switch_to(t, to, 0);
	else if (on_stack_in_use(t, (uintptr_t)ucp->uc_mcontext.gregs[REG_RSP]))
		fnt_note_setcontext(ucp);
}

FNT_EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	struct fnt_thread *t = &fnt_self;
	int (*f)(ucontext_t *, const ucontext_t *) =
		(int (*)(ucontext_t *, const ucontext_t *))real_fn(&real_swap, "swapcontext");
	if (oucp)
		ctx_set((uintptr_t)oucp, t->stk_cur);
	enter_ctx(t, ucp);
	return f(oucp, ucp);
}

FNT_EXPORT int setcontext(const ucontext_t *ucp)
{
	int (*f)(const ucontext_t *) = (int (*)(const ucontext_t *))real_fn(&real_set, "setcontext");
	enter_ctx(&fnt_self, ucp);
	return f(ucp);
}

#endif
