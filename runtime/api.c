/*
 * api.c - the in-program API of include/fntrace.h: markers, stack capture,
 * named scopes, enable/disable.  (FNT_SCOPE itself goes straight to the
 * hooks; snapshots are in ring.c.)
 *
 * Everything here writes into the calling thread's own chunk with the same
 * re-entrancy guard as the hooks, so an API call from a signal handler that
 * interrupted a hook is dropped, never interleaved.  The header tests
 * fnt__active before calling in, so none of this runs when not recording.
 */
#include <link.h>
#include <string.h>
#include <unwind.h>
#include "fntrace.h"
#include "runtime/runtime.h"

static inline uint64_t ext_head(uint64_t d, enum fnt_ext e)
{
	return d << 8 | (uint64_t)e << 2 | FNT_K_EXT;
}

FNT_EXPORT void fnt__mark(const char *text)
{
	struct fnt_thread *t = &fnt_self;
	size_t len = text ? strnlen(text, FNT_MARK_MAX) : 0;

	if (t->busy)
		return;
	t->busy = 1;
	__asm__ volatile("" ::: "memory");
	if (!fnt_thread_room(t, 9 + 8 + 1 + len)) {
		uint64_t d = fnt_event_time(t);
		uint8_t *p = fnt_put_varint(t->pos, ext_head(d, FNT_EXT_MARK));
		p[0] = (uint8_t)len;
		memcpy(p + 1, text, len);
		t->pos = p + 1 + len;
	}
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

struct unwind_state {
	uintptr_t *pc;
	unsigned n, skip;
	uintptr_t *start;        /* fnt_stack_put: each frame's function start (its FDE's), or NULL */
};

static _Unwind_Reason_Code unwind_one(struct _Unwind_Context *ctx, void *arg)
{
	struct unwind_state *u = arg;
	uintptr_t pc = (uintptr_t)_Unwind_GetIP(ctx);
	if (!pc)
		return _URC_END_OF_STACK;
	if (u->skip) {
		u->skip--;
		return _URC_NO_REASON;
	}
	if (u->start)
		u->start[u->n] = (uintptr_t)_Unwind_GetRegionStart(ctx);
	u->pc[u->n++] = pc;
	return u->n == FNT_STACK_MAX ? _URC_END_OF_STACK : _URC_NO_REASON;
}

/* With the guard held: the stack record of u->n frames at t->pos */
static void stack_write(struct fnt_thread *t, const uintptr_t *pc, unsigned n)
{
	if (!n || fnt_thread_room(t, 9 + 8 + 9 + (size_t)n * 9))
		return;
	uint64_t d = fnt_event_time(t);
	uint8_t *p = fnt_put_varint(t->pos, ext_head(d, FNT_EXT_STACK));
	uintptr_t prev = 0;
	p = fnt_put_varint(p, n);
	for (unsigned i = 0; i < n; i++) {
		uint64_t zz = fnt_zigzag((int64_t)(pc[i] - prev));
		if (zz > FNT_VARINT_MAX)
			zz = 0;
		p = fnt_put_varint(p, zz);
		prev = pc[i];
	}
	t->pos = p;
}

/* The unwinder (libgcc's, from .eh_frame) needs no frame pointers and stops
 * cleanly where the unwind tables end; it reads only what the tables
 * describe, so uninstrumented code and code without frame pointers are
 * safe.  The first frame is this function's own: skipped. */
FNT_EXPORT __attribute__((noinline)) void fnt__capture_stack(void)
{
	struct fnt_thread *t = &fnt_self;
	uintptr_t pc[FNT_STACK_MAX];
	struct unwind_state u = { pc, 0, 1, NULL };

	if (t->busy)
		return;
	/* not in a call the record-time filters leave out (under -N,
	 * outside -F, past -D...): the stack goes with the call, as replay
	 * with those filters shows it */
	if (unlikely(fnt_filtering) && !fnt_filter_inner_written(t))
		return;
	_Unwind_Backtrace(unwind_one, &u);
	if (!u.n)
		return;
	t->busy = 1;
	__asm__ volatile("" ::: "memory");
	stack_write(t, pc, u.n);
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
}

#ifndef FNT_STATIC_ARCHIVE
/* the runtime's own mapping (libfntrace.so), found once */
static uintptr_t self_lo, self_hi;

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t me = (uintptr_t)arg;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && me >= lo && me < lo + ph->p_memsz) {
			self_lo = lo;
			self_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}
#endif

/* A backtrace trigger, from the hooks (guard held): the stack from the
 * traced function's own frame outwards.  That frame is the first whose
 * function (as the unwind tables say) starts at fn, or up to 16 bytes
 * before it (an endbr64, a patchable pad); the runtime's frames and the
 * trampoline's before it are left out.  Not from a signal handler (the
 * unwinder's and dl_iterate_phdr's locks): the guard turns those away. */
void fnt_stack_put(struct fnt_thread *t, uintptr_t fn)
{
	uintptr_t pc[FNT_STACK_MAX], start[FNT_STACK_MAX];
	struct unwind_state u = { pc, 0, 0, start };
	unsigned first = 0;

	_Unwind_Backtrace(unwind_one, &u);
	while (first < u.n && fn - start[first] > 16)
		first++;
	if (first == u.n) {
		/* no frame of fn's (a library call, hooked before the library
		 * function runs): from its caller, past the runtime's frames */
		first = 0;
#ifndef FNT_STATIC_ARCHIVE
		if (!self_hi)
			dl_iterate_phdr(find_self, (void *)(uintptr_t)fnt_stack_put);
		while (first < u.n && pc[first] >= self_lo && pc[first] < self_hi)
			first++;
		if (first == u.n)
			first = 0;
#endif
	}
	stack_write(t, pc + first, u.n - first);
}

/* A named scope is a call of a synthetic function: the address of its
 * site variable (it lies in the program's data, so it resolves to a module
 * like any code address).  The first use writes its name to the meta
 * stream of each trace file. */
FNT_EXPORT void *fnt__scope_named(struct fnt_scope_site *site)
{
	int gen = (int)__atomic_load_n(&fnt_file_gen, __ATOMIC_RELAXED);
	int seen = __atomic_load_n(&site->registered, __ATOMIC_ACQUIRE);
	if (seen != gen) {      /* not yet in this trace file (a forked child has its own) */
		struct { uint64_t ticks, addr; } r = { fnt_now(), (uintptr_t)site };
		const char *name = site->name ? site->name : "";
		if (__atomic_compare_exchange_n(&site->registered, &seen, gen, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			fnt_meta_append(FNT_META_SCOPE, &r, sizeof(r), name, strnlen(name, 1000) + 1);
	}
	__cyg_profile_func_enter(site, __builtin_return_address(0));
	return site;
}

/* Per process.  Frames open when recording stops stay open in the trace
 * until their exits are seen after it resumes (or the thread ends). */
FNT_EXPORT void fnt__set_enabled(int on)
{
	struct fnt_file_header *h = fnt_trace_header();
	uint32_t was;
	if (on) {
		was = __atomic_fetch_and(&fnt_fast_off, ~FNT_FAST_PAUSED, __ATOMIC_RELAXED);
	} else {
		/* a new switch off, before any thread finds recording off:
		 * each counts the calls open then anew (event.h, fnt_off_step) */
		if (!fnt_paused())
			__atomic_fetch_add(&fnt_off_epoch, 1, __ATOMIC_SEQ_CST);
		was = __atomic_fetch_or(&fnt_fast_off, FNT_FAST_PAUSED, __ATOMIC_SEQ_CST);
	}
	__atomic_store_n(&fnt__active, on && h, __ATOMIC_RELAXED);
	/* a switch, for the readers: why calls have no return or no entry */
	if (h && !(was & FNT_FAST_PAUSED) != !!on)
		fnt_recording_note();
}

/* A switch, in the file header: the last one with the state recording is
 * in now (threads that race to switch leave the state they left behind),
 * and the first one off.  No lock, no record: a program that switches
 * millions of times costs nothing more, and a flight recorder's file stays
 * its size. */
void fnt_recording_note(void)
{
	struct fnt_file_header *h = fnt_trace_header();
	uint64_t now = fnt_now(), zero = 0;
	if (!h || !now)
		return;
	int off;
	/* again while the flag changed under the store: another thread's
	 * switch, or a --signal handler's on this one, stored its state and
	 * this one's stale state over it */
	for (int i = 0; i < 8; i++) {
		off = fnt_paused() != 0;
		__atomic_store_n(&h->last_switch, now << 1 | (uint64_t)!off, __ATOMIC_SEQ_CST);
		if ((fnt_paused() != 0) == off)
			break;
		now = fnt_now();
	}
	if (off)
		__atomic_compare_exchange_n(&h->first_off_ticks, &zero, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
