/*
 * slowpath.c - the hooks' slow paths: everything an event needs that the
 * fast path (event.h) leaves out, reached by one tail call from the hooks.
 * A thread's first event or a full chunk (fnt_slow_event), a cache miss, a
 * delta that needs a TIME record, a call site (fnt_rare_event), the whole
 * event on CLOCK_MONOTONIC (fnt_mono_event), and the EXT records written
 * beside events: ARGS and RETVAL, UNWIND, SWITCH, LOST, the thread's end.
 */
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include "runtime/runtime-internal.h"
#include "runtime/event.h"

/* ---- event writing, rare cases ---- */

/* Absolute time: the 8-byte body goes first, then the one-byte head, so a
 * reader never sees the head without its body. */
uint8_t *put_time(uint8_t *p, uint64_t ticks)
{
	memcpy(p + 1, &ticks, 8);
	uint64_t x = fnt_varint_pack(ext_head(0, FNT_EXT_TIME), 1);
	*(volatile uint8_t *)p = (uint8_t)x;
	return p + 9;
}

/* 0 when the event cannot be written: its address is none the reader
 * takes (0, not user space: a program that calls the hooks itself) */
static int write_rare(struct fnt_thread *t, uint64_t now, uint64_t d, uintptr_t fn, int is_exit)
{
	uint8_t *p = t->pos;
	int slot = fnt_cache_find(t, fn, ~FNT_CACHE_TAG);    /* (a function with triggers is tagged) */

	if (d >= (1ull << 47)) {        /* a long pause, or a clock that went back */
		p = put_time(p, now);
		d = 0;
	}
	if (slot >= 0) {
		p = put_varint(p, d << 8 | (uint64_t)slot << 2 | (is_exit ? FNT_K_EXIT : FNT_K_ENTRY));
	} else {
		unsigned len = fnt_event_new(t, p, fn, fnt_slot(fn), d, is_exit, 0);
		if (!len) {             /* not a user-space address: the reader would reject it */
			if (!d)
				t->last = now;  /* (the TIME record's, which stays: the reader's time) */
			t->pos = p;
			fnt_lost_events(t, FNT_LOST_ADDR, 1);
			return 0;
		}
		p += len;
	}
	__asm__ volatile("" ::: "memory");
	t->last = now;          /* once the event is written (setjmp.c, guard_abandoned) */
	/* a hook's: the depth moved on before the event counts
	 * (FNT_BUSY_MOVED), then the guard held as before for the records
	 * that may follow */
	uint32_t held = t->busy;
	if (held == 1)
		fnt_depth_move(t, is_exit ? -1 : 1);
	else
		t->depth += is_exit ? -1 : 1;
	t->pos = p;
	__asm__ volatile("" ::: "memory");
	t->busy = held;
	return 1;
}

static void write_callsite(struct fnt_thread *t, uintptr_t fn, uintptr_t site)
{
	uint64_t zz = fnt_zigzag((int64_t)(site - fn));
	if (zz > FNT_VARINT_MAX)
		zz = 0;
	uint8_t *p = put_varint(t->pos, ext_head(0, FNT_EXT_CALLSITE));
	t->pos = put_varint(p, zz);
}

/* entry/exit bookkeeping shared by the rare path and the slow path; 0
 * when a trigger left the event out (triggers: every event of a function
 * with one comes here, see FNT_CACHE_TAG) */
static int finish_event_g(struct fnt_thread *t, uint64_t now, uintptr_t fn, uintptr_t site, int is_exit,
			  const struct fnt_trig **after)
{
	const struct fnt_trig *g = NULL;
	uint64_t gap = fnt_use_tsc ? FNT_GAP_TICKS : FNT_GAP_NS;
	/* The pause is measured from the thread's last event, whose time was
	 * taken before a check like this one: when a gettid takes longer than
	 * the bound (under strace, any ptrace or seccomp supervisor: 20-50 us),
	 * every event found the pause long again and made a system call, 100
	 * times slower in all.  A clone of the thread starts after its last
	 * check ended, so that is where the pause that tells one counts from. */
	if (unlikely(now - t->last >= gap) && now - t->checked_at >= gap) {
		/* not this thread: a hand-made vfork's child, given a state and
		 * file of its own, or else dropped (coro.c) */
		int foreign = fnt_foreign_event(t, is_exit, now - t->last);
		if (foreign == 1 || (foreign == 2 && fnt_thread_room(t, 64)))
			return 0;
	}
	if (unlikely(fnt_trig_flags & FNT_TRIG_RARE) && (g = fnt_trigger_find(fn)) != NULL &&
	    fnt_trigger_before(t, g, now, fn, is_exit))
		return 0;
	if (!write_rare(t, now, now - t->last, fn, is_exit))
		return 0;       /* (nor its depth, nor a CALLSITE record for an entry not written) */
	if (!is_exit && (fnt_flags & FNT_FLAG_CALLSITE))
		write_callsite(t, fn, site);
	if (after)
		*after = g;         /* the caller adds its ARGS/RETVAL record first */
	else if (g)
		fnt_trigger_after(t, g, fn, is_exit);
	return 1;
}

static int finish_event(struct fnt_thread *t, uint64_t now, uintptr_t fn, uintptr_t site, int is_exit)
{
	return finish_event_g(t, now, fn, site, is_exit, NULL);
}

void fnt_mono_event(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit)
{
	finish_event(t, fnt_now(), fn, site, is_exit);
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

const uint8_t fnt_varint_len_table[65] = {
	1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3,
	4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6,
	7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10,
};

void fnt_rare_event(struct fnt_thread *t, uint64_t now, uintptr_t fn, uintptr_t site, int is_exit)
{
	finish_event(t, now, fn, site, is_exit);
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

/* The body is written in place, where it goes (no copy of up to a kilobyte
 * on the stack: these run in signal handlers on small stacks too,
 * doc/safety.md): first 2 bytes further on, room for its length as a
 * 2-byte varint, then moved back one byte if its length takes one.  Body
 * first, then the length, the one-byte head last: a reader never sees a
 * head without its body. */
int fnt_put_ext(struct fnt_thread *t, unsigned ext, size_t max, fnt_fill_fn *fill, const void *arg)
{
	uint8_t *p = t->pos;
	if (!p || !t->chunk || max > FNT_VARINT2_MAX || p + 3 + max + 8 > t->chunk + chunk_size)
		return -1;
	size_t len = fill(p + 3, arg);
	unsigned vl = fnt_varint_len(len);
	if (vl == 1) {
		memmove(p + 2, p + 3, len);
		p[2 + len] = 0;         /* (the byte the move left behind: no event) */
	}
	uint64_t x = fnt_varint_pack(len, vl);
	memcpy(p + 1, &x, vl);
	__asm__ volatile("" ::: "memory");
	x = fnt_varint_pack(ext_head(0, (enum fnt_ext)ext), 1);
	*(volatile uint8_t *)p = (uint8_t)x;
	t->pos = p + 1 + vl + len;
	return 0;
}

static void slow_event_g(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit, const struct fnt_trig **after);

int fnt_event_ext(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit, unsigned ext, size_t max,
		  fnt_fill_fn *fill, const void *arg)
{
	struct fnt_trace_file *tf = cur_file();
	int32_t depth = t->depth;
	const struct fnt_trig *g = NULL;
	/* room for the event (at most 9 + 9 + 16 bytes) and the record, in
	 * one chunk: the record must follow its event */
	if (state == 1 && t->state == FNT_T_ACTIVE && t->pid == tf->pid && t->chunk &&
	    t->pos + 48 + max > t->limit + FNT_CHUNK_SLACK - 8) {
		if (thread_chunk_start(t)) {
			t->state = FNT_T_OFF;
			count_lost(lost_nospace, 1);
			return -1;
		}
	}
	if (t->pos && t->pos < t->limit && state == 1 && t->state == FNT_T_ACTIVE && t->pid == tf->pid) {
		if (!finish_event_g(t, fnt_now(), fn, site, is_exit, &g))
			return -1;
	} else {
		/* (a thread's first event, a process's first after a fork):
		 * its trigger's STACK record after the ARGS one, as above */
		slow_event_g(t, fn, site, is_exit, &g);   /* releases the guard */
		t->busy = 1;
	}
	if (t->depth == depth)
		return -1;
	fnt_put_ext(t, ext, max, fill, arg);
	if (g)
		fnt_trigger_after(t, g, fn, is_exit);
	return 0;
}

/* an EXT record's head and its n varints at p; past them */
static uint8_t *put_ext_body(uint8_t *p, uint64_t head, const uint64_t *v, unsigned n)
{
	p = put_varint(p, head);
	for (unsigned i = 0; i < n; i++)
		p = put_varint(p, v[i]);
	return p;
}

/* an EXT record whose body is n varints (UNWIND, SWITCH: one;
 * SWITCH_OPEN: three); 0 written, -1 not */
static int put_ext_values(struct fnt_thread *t, unsigned ext, const uint64_t *v, unsigned n)
{
	struct fnt_trace_file *tf = cur_file();
	if (state != 1 || t->state != FNT_T_ACTIVE || t->pid != tf->pid || !t->chunk)
		return -1;
	if (t->pos >= t->limit && thread_chunk_start(t))
		return -1;
	uint64_t now = fnt_now(), d = now - t->last;
	if (d >= (1ull << 47)) {
		t->pos = put_time(t->pos, now);
		d = 0;
	}
	t->last = now;
	t->pos = put_ext_body(t->pos, ext_head(d, ext), v, n);
	return 0;
}

static int put_ext_value(struct fnt_thread *t, unsigned ext, uint64_t value)
{
	return put_ext_values(t, ext, &value, 1);
}

void fnt_put_unwind(struct fnt_thread *t, uint32_t n)
{
	if (!put_ext_value(t, FNT_EXT_UNWIND, n))
		t->depth -= (int32_t)n;
}

/* An exception's landing pad in the function that starts at fn (from the
 * unwinder, outside any hook): the reader closes the calls inside its
 * innermost open frame as unwound (those clang's -finstrument-functions
 * left without an exit; gcc's exit hooks have closed them already).
 * t->depth stays: how many frames that is, only the reader knows. */
void fnt_put_unwind_to(struct fnt_thread *t, uintptr_t fn, uintptr_t ip)
{
	if (t->busy || !fn)
		return;
	t->busy = FNT_BUSY_RUNTIME;
	__asm__ volatile("" ::: "memory");
	/* and the landing pad itself, in the same chunk (room for an event
	 * is left past limit): the reader asks its inline chain which calls
	 * inlined into fn hold the catch (clang inlines a function with a
	 * try/catch into its caller; the pad is in the caller's code) */
	if (!put_ext_value(t, FNT_EXT_UNWIND_TO, fn)) {
		t->pos = put_varint(t->pos, ext_head(0, FNT_EXT_LANDING));
		t->pos = put_varint(t->pos, fnt_zigzag((int64_t)(ip - fn)));
	}
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

/* The record of a switch to `stack`, which the thread is on now: the
 * calls open on it, and those under it (open where a thread first entered
 * it), when there are any: a SWITCH_OPEN (a suspended coroutine resumed),
 * so that a reader that did not see them entered (a flight recorder's
 * history, a gap) knows where its frames begin.  Its EXT type; v: the
 * body's varints, n of them. */
static unsigned switch_body(const struct fnt_thread *t, uintptr_t stack, uint64_t *v, unsigned *n)
{
	int32_t open = fnt_stack_open(t), under = t->stk_below;
	v[0] = stack;
	if (open <= 0 && under <= 0) {
		*n = 1;
		return FNT_EXT_SWITCH;
	}
	v[1] = open > 0 ? (uint64_t)open : 0;
	v[2] = under > 0 ? (uint64_t)under : 0;
	*n = 3;
	return FNT_EXT_SWITCH_OPEN;
}

void fnt_put_switch(struct fnt_thread *t, uintptr_t stack)
{
	uint64_t v[3];
	unsigned n, ext = switch_body(t, stack, v, &n);
	t->switches++;
	put_ext_values(t, ext, v, n);
}

/* the same at the start of a chunk (thread_chunk_start), where the record
 * always fits (the room for an event past limit) */
uint8_t *fnt_put_switch_at(struct fnt_thread *t, uint8_t *p, uintptr_t stack)
{
	uint64_t v[3];
	unsigned n, ext = switch_body(t, stack, v, &n);
	return put_ext_body(p, ext_head(0, ext), v, n);
}

void put_thread_name(struct fnt_thread *t)
{
	char name[17] = "";
	uint8_t len;
	fnt_thread_name(name);
	len = (uint8_t)strnlen(name, 16);
	t->pos[1] = len;
	memcpy(t->pos + 2, name, len);
	uint64_t x = fnt_varint_pack(ext_head(0, FNT_EXT_THREAD_NAME), 1);
	*(volatile uint8_t *)t->pos = (uint8_t)x;
	t->pos += 2 + len;
}

void put_lost(struct fnt_thread *t)
{
	if (!t->lost)
		return;
	uint8_t *p = put_varint(t->pos, ext_head(0, FNT_EXT_LOST));
	t->pos = put_varint(p, t->lost);
	t->lost = 0;
}

void put_thread_end(struct fnt_thread *t)
{
	uint64_t now = fnt_now();
	uint64_t d = now - t->last;
	if (d >= (1ull << 47)) {
		t->pos = put_time(t->pos, now);
		d = 0;
	}
	t->last = now;
	t->pos = put_varint(t->pos, ext_head(d, FNT_EXT_THREAD_END));
}

/* This thread records nothing more (no memory for what it needs): its
 * chunk goes, and each event it makes from now on is counted as lost for
 * lack of space, as after a chunk that could not be had. */
void fnt_thread_stop(struct fnt_thread *t)
{
	struct fnt_trace_file *tf = cur_file();
	if (state != 1)
		return;
	if (t->state == FNT_T_ACTIVE && t->pid == tf->pid && t->chunk) {
		if (t->pos < t->limit)
			put_lost(t);
		chunk_release(t, 1);
	}
	t->pid = tf->pid;
	t->state = FNT_T_OFF;
}

void fnt_reentered(struct fnt_thread *t)
{
	fnt_lost_events(t, FNT_LOST_REENTRANT, 1);
}

int fnt_thread_room(struct fnt_thread *t, size_t need)
{
	struct fnt_trace_file *tf = cur_file();
	if (unlikely(state == 0))
		runtime_init();
	if (state != 1 || fnt_paused() || fnt_no_clock)
		return -1;
	if (t->state == FNT_T_OFF && t->pid == tf->pid)
		return -1;
	if (t->state == FNT_T_ACTIVE && t->chunk && t->pid == tf->pid &&
	    t->pos + need + 8 <= t->chunk + chunk_size)
		return 0;
	if (unlikely(!tf->hdr) && child_file_open(t, tf))
		return -1;
	if (t->state == FNT_T_NEW || t->pid != tf->pid)
		thread_register(t);
	else if (t->state == FNT_T_ENDED)
		t->state = FNT_T_ACTIVE;
	if (need + 8 + FNT_CHUNK_HDR_SIZE + 16 > chunk_size || thread_chunk_start(t))
		return -1;
	return 0;
}

uint64_t fnt_event_time(struct fnt_thread *t)
{
	uint64_t now = fnt_now(), d = now - t->last;
	if (d >= (1ull << 47)) {
		t->pos = put_time(t->pos, now);
		d = 0;
	}
	t->last = now;
	return d;
}

/* after: as finish_event_g's (NULL: the trigger's action now) */
static void slow_event_g(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit, const struct fnt_trig **after)
{
	struct fnt_trace_file *tf = cur_file();
	if (unlikely(state == 0)) {
		runtime_init();
		/* this event started the runtime (code that runs before its
		 * constructor): the filters just read decide it too */
		if (state == 1 && (fnt_filtering | fnt_paused()) && fnt_gate_skip(t, fn, is_exit))
			goto out;
	}
	if (state != 1)
		goto out;
	if (unlikely(fnt_no_clock)) {    /* seccomp strict (clock.c) */
		count_lost(reserved[FNT_RES_LOST_NOCLOCK], 1);
		goto out;
	}
	if (t->state == FNT_T_OFF && t->pid == tf->pid) {
		count_lost(lost_nospace, 1);
		goto out;
	}
	if (unlikely(t->state == FNT_T_NEW && t->tid)) {
		/* the thread's first written event (the filters left out the
		 * ones before, which named the thread, coro.c): the thread's, or
		 * a hand-made vfork's child in its place? */
		if (fnt_foreign_event(t, is_exit, 0) == 1)
			goto out;
		tf = cur_file();        /* (the child's own file, if it was lent the state) */
	}
	if (unlikely(!tf->hdr) && child_file_open(t, tf)) {
		count_lost(lost_nospace, 1);
		goto out;
	}
	if (t->state == FNT_T_NEW || t->pid != tf->pid)
		thread_register(t);
	else if (t->state == FNT_T_ENDED)
		t->state = FNT_T_ACTIVE;  /* calls after the thread's destructor ran */
	if (thread_chunk_start(t)) {
		t->state = FNT_T_OFF;
		count_lost(lost_nospace, 1);
		goto out;
	}
	/* now write the event the fast path could not */
	finish_event_g(t, fnt_now(), fn, site, is_exit, after);
out:
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

void fnt_slow_event(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit)
{
	slow_event_g(t, fn, site, is_exit, NULL);
}
