/*
 * trigger.c - record-time triggers (`fntrace record -T FUNC@ACTION`): what
 * happens when a chosen function is entered or returns.
 *
 * The functions are found by name where the filters find theirs (filter.c,
 * at start and at each dlopen), and published in the same set, in a table
 * of their own (addr -> actions).  Most actions run in the hooks' rare
 * path: after its first event, a function with a trigger stays in the
 * thread's address cache with FNT_CACHE_TAG set, so that each of its events
 * misses the cache and comes through slowpath.c's finish_event, which calls
 * here.  A function without a trigger keeps hitting the cache: it pays
 * nothing.  (depth=N, filter, notrace and hide act through the filters.)
 *
 * - trace_off: the entry is not written and recording stops (as
 *   fnt_disable() does); trace_on: while recording is off, each entry is
 *   looked up (event.h) and FUNC's turns it on, FUNC's entry included;
 * - backtrace: an EXT_STACK record after FUNC's entry, as fnt_capture_stack()
 *   writes, from FUNC's own frame outwards;
 * - snapshot: a flight-recorder snapshot "trigger-N" after FUNC's entry;
 * - finish: recording stops after FUNC's exit, for good (no trace_on
 *   trigger turns it on again);
 * - time=DUR: FUNC's whole subtree is erased when FUNC returns sooner than
 *   DUR.  The writer's state (position, timestamp base, address cache) is
 *   saved at FUNC's entry; at its exit, when the thread is still in the
 *   same chunk, everything from FUNC's entry on is zeroed (its first byte
 *   first: the data ends there again, for a reader at any instant) and the
 *   state put back.  A subtree that outgrew its chunk is kept: the readers
 *   apply time= again (the trace's FILTERS record has it), so the result is
 *   the same, only bigger on disk.
 */
#include <string.h>
#include <sys/mman.h>
#include "fntrace.h"
#include "runtime/runtime.h"
#include "runtime/event.h"

void fnt__set_enabled(int on);

struct fnt_tsave {                  /* time=: the writer's state before FUNC's entry */
	uintptr_t fn;
	int32_t depth;                  /* t->depth before the entry */
	uint32_t seq;                   /* t->seq while that chunk is current */
	uint32_t switches;              /* t->switches then */
	uint8_t *pos;
	uint64_t last, prev_new, start;
	uintptr_t cache[FNT_CACHE_SLOTS];
};
#define TSAVES 8                    /* nested time= calls saved per thread */

int fnt_trig_finished FNT_HIDDEN;    /* a finish trigger fired: trace_on no longer turns recording on */
static unsigned snap_count;

const struct fnt_trig *fnt_trigger_find(uintptr_t fn)
{
	const struct fnt_fset *s = __atomic_load_n(&fnt_cur_set, __ATOMIC_ACQUIRE);
	if (!s || !s->trig)
		return NULL;
	for (uint64_t j = fnt_fset_hash(fn) & s->trig_mask;; j = (j + 1) & s->trig_mask) {
		if (!s->trig[j].addr)
			return NULL;
		if (s->trig[j].addr == fn)
			return &s->trig[j].g;
	}
}

int fnt_trigger_paused(uintptr_t fn)
{
	const struct fnt_trig *g = fnt_trigger_find(fn);
	if (!g || !(g->flags & FNT_TRIG_ON) || __atomic_load_n(&fnt_trig_finished, __ATOMIC_RELAXED))
		return 0;
	fnt__set_enabled(1);
	return 1;
}

static int tsaves_map(struct fnt_thread *t)
{
	if (!t->flt.tsaves) {
		void *m = mmap(NULL, TSAVES * sizeof(struct fnt_tsave), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (m == MAP_FAILED)
			return -1;
		t->flt.tsaves = m;
	}
	return 0;
}

/* A thread's first event: the time= saves are mapped now, before any
 * call's entry time is read.  Mapped at the first time= entry instead, the
 * system call and its page fault fell inside that call: its recorded time
 * grew by them, and a preemption there could make it outlast its time=. */
void fnt_trigger_thread_start(struct fnt_thread *t)
{
	if (fnt_trig_flags & FNT_TRIG_TIME)
		(void)tsaves_map(t);
}

static void tsave_push(struct fnt_thread *t, uintptr_t fn, uint64_t now)
{
	if (tsaves_map(t))
		return;                 /* (could not be mapped at the thread's start either) */
	while (t->flt.n_tsaves && t->flt.tsaves[t->flt.n_tsaves - 1].depth >= t->depth)
		t->flt.n_tsaves--;      /* calls that left without their exit reaching us */
	if (t->flt.n_tsaves == TSAVES || !t->chunk)
		return;                 /* kept whatever it lasts (the readers still apply time=) */
	struct fnt_tsave *f = &t->flt.tsaves[t->flt.n_tsaves++];
	f->fn = fn;
	f->depth = t->depth;
	f->seq = t->seq;
	f->switches = t->switches;
	f->pos = t->pos;
	f->last = t->last;
	f->prev_new = t->prev_new;
	f->start = now;
	memcpy(f->cache, t->cache, sizeof(f->cache));
}

/* The call saved in f, shorter than its time= up to now: its subtree
 * erased and the writer's state put back as it was before its entry (1).
 * Kept (0): long enough; or its entry is in an earlier chunk; or the
 * thread switched machine stacks since (coroutines): what follows the
 * entry holds another stack's events, not only its subtree. */
static int tsave_undo(struct fnt_thread *t, const struct fnt_tsave *f, const struct fnt_trig *g, uint64_t now)
{
	if (now - f->start >= g->time_ticks || f->seq != t->seq || f->switches != t->switches || !t->chunk ||
	    f->pos < t->chunk + FNT_CHUNK_HDR_SIZE || f->pos > t->pos)
		return 0;
	int marked = fnt_erase_mark(t, f->pos, f->depth);    /* (a jump out of a handler finishes it) */
	fnt_erase_tail(t, f->pos);
	t->pos = f->pos;
	t->last = f->last;
	t->prev_new = f->prev_new;
	memcpy(t->cache, f->cache, sizeof(t->cache));
	if (marked) {
		__asm__ volatile("" ::: "memory");
		t->busy = 1;
	} else {
		t->depth = f->depth;
	}
	return 1;
}

/* 1 when FUNC, returning now, was shorter than its time= and its subtree is erased */
static int tsave_erase(struct fnt_thread *t, const struct fnt_trig *g, uintptr_t fn, uint64_t now)
{
	struct fnt_tsave *f;
	while (t->flt.n_tsaves && t->flt.tsaves[t->flt.n_tsaves - 1].depth > t->depth - 1)
		t->flt.n_tsaves--;
	if (!t->flt.n_tsaves)
		return 0;
	f = &t->flt.tsaves[t->flt.n_tsaves - 1];
	if (f->fn != fn || f->depth != t->depth - 1)
		return 0;
	t->flt.n_tsaves--;
	return tsave_undo(t, f, g, now);
}

/* A longjmp back to depth: the time= calls it leaves never return, so
 * their exits cannot erase them.  The outermost of them that lasted less
 * than its time= up to the jump is erased here with its whole subtree, as
 * its return would have.  Returns how many written frames went (t->depth
 * went down by it). */
int fnt_trigger_unwind_erase(struct fnt_thread *t, int32_t depth)
{
	uint64_t now;
	int32_t was = t->depth;
	if (!(fnt_trig_flags & FNT_TRIG_TIME) || !t->flt.tsaves)
		return 0;
	while (t->flt.n_tsaves && t->flt.tsaves[t->flt.n_tsaves - 1].depth > t->depth - 1)
		t->flt.n_tsaves--;      /* calls that left without their exit reaching us */
	now = fnt_now();
	for (uint32_t i = 0; i < t->flt.n_tsaves; i++) {
		struct fnt_tsave *f = &t->flt.tsaves[i];
		const struct fnt_trig *g;
		if (f->depth < depth)
			continue;       /* not left by the jump */
		g = fnt_trigger_find(f->fn);
		if (!g || !(g->flags & FNT_TRIG_TIME) || !tsave_undo(t, f, g, now))
			continue;
		t->flt.n_tsaves = i;
		return was - t->depth;
	}
	return 0;
}

int fnt_trigger_before(struct fnt_thread *t, const struct fnt_trig *g, uint64_t now, uintptr_t fn, int is_exit)
{
	if (is_exit)
		return (g->flags & FNT_TRIG_TIME) && tsave_erase(t, g, fn, now);
	if (g->flags & FNT_TRIG_OFF) {
		fnt__set_enabled(0);
		fnt_off_step(t, 0);     /* (an entry while recording is off: its return is not written) */
		if (fnt_filtering)
			fnt_filter_off_entered(t);   /* (nor once recording is on again) */
		return 1;
	}
	if (g->flags & FNT_TRIG_TIME)
		tsave_push(t, fn, now);
	return 0;
}

void fnt_trigger_after(struct fnt_thread *t, const struct fnt_trig *g, uintptr_t fn, int is_exit)
{
	int slot = fnt_cache_find(t, fn, ~FNT_CACHE_TAG);
	if (slot >= 0)
		t->cache[slot] |= FNT_CACHE_TAG;    /* its next events miss the cache and come here */
	if (!is_exit) {
		if (g->flags & FNT_TRIG_BACKTRACE)
			fnt_stack_put(t, fn);
		if (g->flags & FNT_TRIG_SNAPSHOT)
			fnt_snapshot_numbered("trigger-", &snap_count);
	} else if (g->flags & FNT_TRIG_FINISH) {
		__atomic_store_n(&fnt_trig_finished, 1, __ATOMIC_RELAXED);
		fnt__set_enabled(0);
	}
}

void fnt_trigger_thread_exit(struct fnt_thread *t)
{
	if (t->flt.tsaves) {
		munmap(t->flt.tsaves, TSAVES * sizeof(struct fnt_tsave));
		t->flt.tsaves = NULL;
		t->flt.n_tsaves = 0;
	}
}
