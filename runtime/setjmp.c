/*
 * setjmp.c - setjmp and longjmp: the trampolines in arch/x86_64/setjmp.S
 * note each setjmp buffer with the call depth it was set at, and a longjmp
 * writes an UNWIND record for the frames it leaves, before going on into
 * libc's own function.  getcontext and a setcontext back to its context on
 * the same stack (runtime/coro.c tells) are the same pair.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include "runtime/runtime-internal.h"

int fnt_handler_jumps;

/* ---- setjmp / longjmp (not in the static archive: see the Makefile) ---- */
#ifndef FNT_STATIC_ARCHIVE

/* the program may jump out of signal handlers: stack switches block the
 * signals from now on (coro.c, switch_block) */
static void handler_jumps_seen(void)
{
	if (!__atomic_load_n(&fnt_handler_jumps, __ATOMIC_RELAXED))
		__atomic_store_n(&fnt_handler_jumps, 1, __ATOMIC_RELAXED);
}

static const char *const jmp_names[] = {
	"_setjmp", "setjmp", "__sigsetjmp", "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "getcontext",
};
static void *jmp_real[8];

static void *jmp_target(int which)
{
	void *f = __atomic_load_n(&jmp_real[which], __ATOMIC_RELAXED);
	if (!f) {
		f = dlsym(RTLD_NEXT, jmp_names[which]);
		__atomic_store_n(&jmp_real[which], f, __ATOMIC_RELAXED);
	}
	return f;
}

/* Looked up at start, not at the first jump: dlsym takes the loader's
 * lock, and a handler that jumped out of a signal handler that landed
 * there (a second signal, SA_NODEFER) left the lock held, and the program
 * hung at exit (in _dl_fini).  (unwind_backtrace_resolve, fentry.c, does
 * the same for backtrace.) */
__attribute__((constructor)) static void jmp_resolve(void)
{
	for (int i = 0; i < 8; i++)
		(void)jmp_target(i);
}

void *fnt_note_setjmp(void *env, int which, long arg)
{
	struct fnt_thread *t = &fnt_self;
	uintptr_t sp;
	unsigned i;
	/* sigsetjmp(env, 1), or BSD setjmp, which save the signal mask: the
	 * buffer a jump out of a signal handler needs (coro.c, switch_with).
	 * Also a program that never jumps from a handler (an error loop's
	 * sigsetjmp): its stack switches then pay two system calls each */
	if ((which == 2 && arg) || which == 1)
		handler_jumps_seen();
	/* the machine stack this runs on, as a hook would find it first: a
	 * return from a handler on a sigaltstack, or a switch back from a
	 * coroutine, that no hook has seen yet would give the buffer the other
	 * stack's depths; and a context on this TLS that is not the thread (a
	 * raw clone's child) leaves the thread's buffers alone */
	__asm__("mov %%rsp, %0" : "=r"(sp));
	if (fnt_stack_check(t, sp, 0))
		return jmp_target(which);
	for (i = 0; i < 8; i++)
		if (t->jmp[i].env == (uintptr_t)env)
			break;
	if (i == 8)
		i = t->jmp_next++ & 7;
	t->jmp[i].env = (uintptr_t)env;
	t->jmp[i].depth = t->depth;
	t->jmp[i].fdepth = t->flt.fdepth;
	t->jmp[i].ss_top = t->ss_top;
	t->jmp_off[i].epoch = t->off_epoch;
	t->jmp_off[i].rel = t->off_rel;
	t->jmp_off[i].stk = t->stk_cur;
	t->jmp_off[i].h = t->depth - t->stk_base;
	t->jmp_off[i].hf = fnt_stack_calls(t);
	t->jmp[i].guard_free = !t->busy;
	return jmp_target(which);
}

/* A jump out of a signal handler (siglongjmp) that landed while a hook
 * held the guard leaves that hook for good: it never gives the guard back,
 * and every later event of the thread would be dropped as re-entrant.  When
 * the guard was free where the jump goes (the setjmp was not itself made
 * inside such a handler), the guard is the abandoned hook's: free it.  The
 * hook was left anywhere in its event, and the trace and the thread's
 * state must agree again (runtime.h, FNT_BUSY_MOVED):
 * - busy FNT_BUSY_MOVED: the hook had written its event and moved the
 *   depth on for it (after everything else it changes), and perhaps not
 *   yet moved t->pos past it: t->pos goes past it now;
 * - busy 1 and a zero byte at t->pos: the hook had written no byte of it
 *   and changed nothing the reader follows (the address cache and the
 *   last NEW address change once an event is written);
 * - busy 1 and a byte there: its event was written, whole or in part, and
 *   the cache may have moved on for it: the thread's next record starts a
 *   new chunk, which starts the cache afresh for the writer and the reader
 *   alike;
 * - busy FNT_BUSY_ERASING: it was taking back a short call's records (-t, a
 *   time= trigger) and had set the depth it leaves: the records go from
 *   t->erase_from on, and the next record starts a new chunk (the cache
 *   may be half put back).
 * What lies past t->pos is zeroed (the data ends at t->pos again: the
 * bytes past it are zero as long as nothing is half written), and the
 * caller sees that the next record carries a TIME record (time_due), which
 * gives the writer and the reader the same time again (the time of the
 * last event may have moved on for a record that is not in the trace).
 * The frames the hook was entering or leaving go with the jump's UNWIND.
 * Not a guard held for a vfork or clone child on this TLS. */
static void guard_abandoned(struct fnt_thread *t)
{
	uint8_t *end = t->limit ? t->limit + FNT_CHUNK_SLACK : NULL;
	size_t len, n;
	int ev;

	if (t->pos && end && t->pos < end) {
		if (t->busy == FNT_BUSY_ERASING) {
			uint8_t *from = t->erase_from;
			if (t->chunk && from >= t->chunk + FNT_CHUNK_HDR_SIZE && from <= t->pos) {
				fnt_erase_tail(t, from);
				t->pos = from;
			}
			if (t->pos < t->limit)
				t->limit = t->pos;
		} else if (t->busy == FNT_BUSY_MOVED) {
			while ((len = fnt_record_len(t->pos, end, &ev)) && t->pos + len < end)
				t->pos += len;
		} else if (*t->pos && t->pos < t->limit) {
			t->limit = t->pos;
		}
		n = (size_t)(end - t->pos);
		memset(t->pos, 0, n < 2048 ? n : 2048);    /* (an event with its values is shorter) */
	}
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

/* After guard_abandoned: the thread's next record carries a TIME record
 * (every writer writes one for a pause of 2^47 or more).  Not before the
 * erasures the jump makes (-C, -t): a record between an entry and them
 * keeps them from taking its call back. */
static void time_due(struct fnt_thread *t)
{
	t->last = fnt_now() - (1ull << 48);
}

/* Does a jump to buffer j, set on another stack, leave the stack in use
 * for good?  When the buffer is on the stack this one was entered from,
 * below the calls open there then; or on the stack that one was entered
 * from, below those (a handler on a sigaltstack that entered a coroutine,
 * which jumps back to where the handler ran).  Never from the thread's own
 * stack. */
static int jump_out(const struct fnt_thread *t, const __typeof__(t->jmp_off[0]) *j)
{
	uintptr_t from;
	int32_t from_h;
	if (!t->stk_cur)
		return 0;
	if (t->stk_from == j->stk)
		return j->hf <= t->stk_from_h;
	return t->stk_from && fnt_coro_entered_from(t->stk_from, &from, &from_h) && from == j->stk && j->hf <= from_h;
}

/* the jump back to env: the frames it leaves, recorded as unwound */
static void jmp_unwind(const void *env)
{
	struct fnt_thread *t = &fnt_self;
	int resync = 0;
	for (unsigned i = 0; i < 8; i++) {
		if (t->jmp[i].env != (uintptr_t)env)
			continue;
		if (t->busy && t->jmp[i].guard_free)
			handler_jumps_seen();
		if ((t->busy == 1 || t->busy == FNT_BUSY_MOVED || t->busy == FNT_BUSY_ERASING) && t->jmp[i].guard_free &&
		    !t->tls_shared && !t->file) {
			guard_abandoned(t);     /* (a hook's: not the runtime's own work, FNT_BUSY_RUNTIME) */
			resync = 1;
		}
		/* recording off: the calls entered since it went off that the
		 * jump leaves are counted out (all of them when the setjmp was
		 * made before), or their count would take the returns of the
		 * calls open when it went off, which are written (fnt_off_step).
		 * Each machine stack has its own count and filter depth: a jump
		 * to another one (out of a coroutine, or a handler on a
		 * sigaltstack) sets that stack's when the thread is found on it,
		 * at a hook there */
		/* the depth the jump goes back to on the stack in use; and its
		 * shadow stack's height */
		int32_t to = t->jmp[i].depth, fto = t->jmp[i].fdepth;
		uint32_t ss_to = t->jmp[i].ss_top;
		int out = 0;
		if (t->jmp_off[i].stk != t->stk_cur) {
			t->jmp_pend.stk = t->jmp_off[i].stk;
			t->jmp_pend.fdepth = t->jmp[i].fdepth;
			t->jmp_pend.ss_top = t->jmp[i].ss_top;
			t->jmp_pend.h = t->jmp_off[i].h;
			t->jmp_pend.land = 0;
			t->jmp_pend.epoch = t->jmp_off[i].epoch;
			t->jmp_pend.rel = t->jmp_off[i].rel;
			t->jmp_pend.off = fnt_paused() != 0;
			t->jmp_pend.set = 1;
			/* A buffer on the stack the one in use was entered from,
			 * below the calls open there then (a jump out of a
			 * coroutine, or of a handler on a sigaltstack, back to
			 * where it was entered from): every call open on this
			 * stack is left, and those on the buffer's stack above it
			 * are closed once the thread is found there (before, both
			 * went here, as many calls as lay above the buffer in the
			 * thread's count, and the calls made after the jump
			 * showed inside the frames it left on the buffer's
			 * stack); the stack left has no call open, and its
			 * filters' depth goes back to the one it was entered at
			 * (where the reader starts it again too).  Any other
			 * (stacks that take turns by jumps, each resuming the
			 * other's buffer; a jump from the thread's own stack)
			 * leaves this stack as it is: its calls, its shadow stack
			 * and its filter depth.  (The calls are counted whole,
			 * written or not, so that record-time filters decide as
			 * a recording without them does.) */
			if (jump_out(t, &t->jmp_off[i])) {
				/* (its shadow stack keeps its frames, closed: a
				 * coroutine that the program resumes later by a jump
				 * returns through them, fnt_shadow_close) */
				to = t->stk_base;
				fto = t->flt_base;
				out = 1;
			} else {
				to = t->depth;
				fto = t->flt.fdepth;
				ss_to = t->ss_top;
			}
		} else if (fnt_paused()) {
			fnt_off_restore(t, t->jmp_off[i].epoch, t->jmp_off[i].rel);
		}
		int32_t n = t->depth - to;
		/* The guard is held below as a hook holds it (1), not as the
		 * runtime's own work: a handler that lands here and jumps out
		 * frees it (guard_abandoned), and each step leaves the trace as
		 * a hook's does.  (Held as the runtime's, it stayed held, and the
		 * thread recorded nothing more: a second signal's handler that
		 * jumped, held back while a chunk was started.) */
		if (n > 0 && t->state == FNT_T_ACTIVE && t->chunk && !t->busy && state == 1) {
			/* record -C: the frames left that led to no match go, as their returns would have */
			t->busy = 1;
			n -= fnt_filter_unwind_erase(t, to);
			if (n > 0)      /* and time= calls shorter than their threshold */
				n -= fnt_trigger_unwind_erase(t, to);
			t->busy = 0;
		}
		fnt_filter_longjmp(t, fto);
		if (n <= 0)     /* only frames the filters left out were left */
			out ? fnt_shadow_close(t) : fnt_shadow_cut(t, ss_to);
		/* (no chunk: the last switch to a new one failed; try again, as
		 * the next hook would) */
		if (n <= 0 || t->state != FNT_T_ACTIVE || t->busy || state != 1)
			break;
		t->busy = 1;
		if (t->chunk ? t->pos < t->limit || !thread_chunk_start(t) : !fnt_thread_room(t, 32)) {
			uint64_t now = fnt_now(), d = now - t->last;
			uint8_t *p = t->pos;
			if (d >= (1ull << 47) || resync) {
				resync = 0;
				p = put_time(p, now);
				d = 0;
			}
			p = put_varint(p, ext_head(d, FNT_EXT_UNWIND));
			p = put_varint(p, (uint64_t)n);
			__asm__ volatile("" ::: "memory");
			t->last = now;
			fnt_depth_moved_to(t, to);   /* (the hooks' order: runtime.h, FNT_BUSY_MOVED) */
			t->pos = p;
			out ? fnt_shadow_close(t) : fnt_shadow_cut(t, ss_to);   /* those frames are gone */
		}
		__asm__ volatile("" ::: "memory");
		t->busy = 0;
		break;
	}
	if (resync)
		time_due(t);
}

void *fnt_note_longjmp(void *env, int which)
{
	jmp_unwind(env);
	return jmp_target(which);
}

void fnt_note_setcontext(const void *ucp)
{
	jmp_unwind(ucp);
}

#endif
