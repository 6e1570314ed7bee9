/*
 * runtime.h - state shared by the runtime's files (hooks.c, slowpath.c,
 * modules.c ...; runtime-internal.h holds what only the files split from
 * runtime.c share).  Nothing here is exported from libfntrace.so.
 *
 * Ownership: struct fnt_thread is touched only by its own thread (and by
 * signal handlers on that thread, which the `busy` guard turns away).  The
 * globals are written at start-up, at fork in the child, and under the meta
 * lock; the hot path only reads fnt_flags.
 */
#ifndef FNT_RUNTIME_H
#define FNT_RUNTIME_H

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include "format/argspec.h"
#include "format/format.h"

#define FNT_HIDDEN __attribute__((visibility("hidden")))
#define FNT_EXPORT __attribute__((visibility("default")))
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define FNT_RING_MAX 32           /* chunks per thread in ring mode, at most */

enum fnt_thread_state { FNT_T_NEW = 0, FNT_T_ACTIVE, FNT_T_OFF, FNT_T_ENDED };

/* A trace file and its meta stream: the process's own (tracefile.c), or a
 * vfork child's (vfork.c).  The meta fields are appended under meta_lock
 * by any thread of the process that writes this file. */
struct fnt_trace_file {
	struct fnt_file_header *hdr;   /* mapping of the file header */
	int fd;
	ino_t ino;                     /* identity of the file (the fd is checked before use) */
	dev_t dev;
	uint32_t pid;                  /* the process it belongs to (fork check) */
	int meta_lock;
	uint8_t *meta_chunk, *meta_pos, *meta_end;
	off_t meta_chunk_off;
	uint32_t meta_seq;
	char path[4200];
};
struct fnt_vfork;

/* The record-time filters' state that belongs to a machine stack, not to
 * the thread: its call depth, the -F/-N/-C subtrees and -H calls open on
 * it, its depth=N triggers.  coro.c parks it with the stack (filter.c
 * fills and restores it), so that a coroutine's calls are decided on its
 * own depth, as the reader's filters decide them.  valid 0: none (a stack
 * new to the filters). */
/* calls a landing pad closed: fn, above the landing frame at fdepth `at` */
#define FNT_GONE_MAX 8
struct fnt_gone {
	struct { uintptr_t fn; int32_t at; } e[FNT_GONE_MAX];
	uint32_t n;
};

struct fnt_filter_park {
	/* recording off: the calls this stack entered since (fnt_off_step) */
	uint32_t off_epoch;
	int32_t off_rel;
	struct fnt_gone gone;
	int32_t fdepth, f_root, n_root, h_open, c_root, c_keep, d_lim, o_open;
	int32_t fbase;           /* fdepth when the stack was entered anew */
	uint32_t n_dstack;
	struct { int32_t fdepth, prev; } dstack[8];
	uint64_t *hbits;
	uint32_t valid;
};

/* fnt_thread.busy when the guard is held by the runtime's own work
 * outside a hook (a stack switch, the module map, a thread's set-up): a
 * siglongjmp out of a handler does not free it (setjmp.c), where it frees
 * a hook's (1) */
#define FNT_BUSY_RUNTIME 2u
/* A hook's event and its move of the depth are two stores, and a signal
 * handler that leaves the hook by a siglongjmp may land between them: the
 * jump's UNWIND, counted from t->depth, then closed one frame too many or
 * too few, and every later call nested one level off.  So a hook writes
 * its event's bytes at t->pos and changes what the reader follows (the
 * address cache, the last NEW address, the time) first, then the new
 * depth together with busy = FNT_BUSY_MOVED in one store, then t->pos
 * past the event, then busy 0.  A jump out of it (setjmp.c) finds busy 1:
 * the depth was not moved, and nothing past t->pos counts; or
 * FNT_BUSY_MOVED: the event is whole and counted in the depth, and t->pos
 * goes past it if it is not yet. */
#define FNT_BUSY_MOVED 0x80000000u
/* The same for taking records back (the record-time filters' -t, a time=
 * trigger: a call shorter than its bound is erased, and the writer's state
 * put back as it was before its entry): the depth it leaves goes first,
 * with busy = FNT_BUSY_ERASING, in one store (fnt_erase_mark), after
 * t->erase_from, where the erasure starts; a jump out of it finishes it. */
#define FNT_BUSY_ERASING 0x40000000u

struct fnt_thread {
	/* hot: read and written by every hook */
	uint8_t *pos;            /* next byte to write */
	uint8_t *limit;          /* chunk end - FNT_CHUNK_SLACK; NULL until a chunk is mapped */
	uint64_t last;           /* ticks of the previous event */
	uint64_t prev_new;       /* address of the previous NEW event */
	union {
		struct {
			int32_t depth;
			uint32_t busy;   /* re-entrancy guard (signal handlers): 1 held by a hook (an event
					  * being written), FNT_BUSY_MOVED by a hook that has moved
					  * the depth on for its event (fnt_depth_move),
					  * FNT_BUSY_RUNTIME by the runtime's other work */
		};
		uint64_t depth_busy;     /* the two in one store */
	};
	uintptr_t stk_lo, stk_span;   /* the stack pointers the hooks take for this thread's (coro.c) */
	uintptr_t cache[FNT_CACHE_SLOTS];
	/* cold */
	uint8_t *chunk;          /* mapping of the current chunk */
	int64_t chunk_off;       /* its offset in the file */
	uint32_t serial, tid, seq, state;
	uint32_t pid;            /* process that set this state up (fork check) */
	uint64_t lost;           /* dropped events not yet reported in the stream */
	struct {                 /* recent setjmp buffers and the depth they were set at */
		uintptr_t env;
		int32_t depth;
		int32_t fdepth;
		uint32_t ss_top;     /* shadow stack height then (-pg -mfentry) */
		uint32_t guard_free; /* the guard was free then (not a signal handler inside a hook) */
	} jmp[8];
	uint32_t jmp_next;
	/* flight recorder: file offsets of this thread's chunks, oldest at ring_next once full */
	int64_t ring[FNT_RING_MAX];
	uint32_t ring_n, ring_next;
	/* record-time filters (filter.c), used only when fnt_filtering; kept
	 * when the thread registers (its first written event) */
	struct fnt_filter_state {
		int32_t fdepth;          /* depth counting every traced call, written or not */
		int32_t f_root;          /* fdepth of the outermost open -F match, 0: none */
		int32_t n_root;          /* fdepth of the open hidden subtree (-N, excluded thread), 0: none */
		uint32_t name_gen;       /* fnt_name_gen when this thread's name was last checked */
		uint32_t thread_off;     /* its name matches --no-thread */
		int32_t o_open;          /* -D: open calls entered while recording was off (not levels) */
		struct fnt_tframe *tframes;  /* -t, -C: state before each open written entry, by depth */
		int32_t h_open;          /* -H: open hidden calls (their callees move up a level) */
		int32_t c_root;          /* -C: fdepth of the open -C match, whose callees are left out; 0: none */
		int32_t c_keep;          /* -C: the open calls at fdepth <= c_keep lead to a -C match */
		int32_t d_lim;           /* depth=N trigger: no call deeper than this fdepth; 0: none */
		uint32_t n_dstack;
		struct { int32_t fdepth, prev; } dstack[8];   /* the open depth=N triggers */
		uint64_t *hbits;         /* -H: the fdepths of the open hidden calls (bit set); then, as many
					    words on, those of the open calls entered while recording was off */
		struct fnt_tsave *tsaves;    /* time=DUR triggers: the writer's state at each open entry */
		uint32_t n_tsaves;
	} flt;
	/* -pg -mfentry: the real return addresses of the frames whose return
	 * address was swapped for the return trampoline (runtime/fentry.c) */
	struct fnt_shadow_entry *ss;
	uint32_t ss_top, ss_cap;   /* ss_cap is 0 whenever ss is NULL: ENTER_ASM's one check covers both */
	uint32_t ss_restored;    /* real addresses put back for an unwind in progress */
	/* vfork and clone children running on this TLS (clone.c): the guard is
	 * held for them; tls_busy is its value to give back */
	uint32_t tls_shared, tls_busy;
	/* the address cache's sets: bit s says which slot of set s (the odd
	 * one when set) the next NEW event of the set fills, flipped by each:
	 * the older of the two goes (fnt_event_new).  The writer's own
	 * choice; the reader follows the NEW events, so nothing resets it */
	uint32_t cache_fifo;
	uint32_t *tls_word;      /* cleared by the kernel when the child we watch is gone */
	/* coroutines (coro.c): the machine stack in use, named as in SWITCH
	 * records (0: the thread's own); the other stacks are parked in a
	 * process-wide registry, the thread's own under the key made from
	 * stk_own (0: not made yet) */
	uintptr_t stk_cur;
	uint64_t stk_own;
	int32_t stk_base;        /* t->depth below the frames open on the stack in use */
	uint32_t stk_runner;     /* index + 1 in coro.c's list of threads that switched stacks */
	uint32_t stk_hint;       /* slot + 1 in coro.c's registry where it parked a stack last */
	uintptr_t stk_min, stk_max;   /* stack pointers seen on the machine stack in use (0: none yet) */
	/* a context on this TLS that is not the thread (a CLONE_VM child
	 * running beside it) used stack pointers in [fgn_lo, fgn_hi]: the
	 * window leaves them out (0: none; coro.c); stk_raised: the window's
	 * floor was raised after a pause (fnt_foreign_event) */
	uintptr_t fgn_lo, fgn_hi;
	uint32_t stk_raised;
	uint32_t switches;       /* SWITCH records written (a time= erasure must not cross one) */
	/* the stack left when coro.c's registry had no slot for it, while the
	 * thread runs on one it does not track (coro.c's struct stack_state;
	 * a key of 0: none) */
	uint64_t stk_held[47];
	/* vfork (vfork.c): in a vfork child, the file it writes (NULL: the
	 * process's); in any thread, its save area for the next vfork */
	struct fnt_trace_file *file;
	struct fnt_vfork *vfork;
	/* record-time filters: the function entered at each fdepth below
	 * flt_cap (fnt_fn_note), so that an exception's landing pad finds the
	 * depth of its frame (clang's -finstrument-functions calls no exit hook
	 * for the frames it unwinds) and an exit its call; NULL: none (not
	 * filtering, a vfork child, no memory).  Those at fdepth <= flt_fn_lo
	 * are not known (a stack switch), nor those with no function noted */
	struct fnt_fnote *flt_notes;
	uint32_t flt_cap;
	int32_t flt_fn_lo;
	uint32_t flt_fn_tried;
	/* the calls landing pads closed above their landing frames, oldest
	 * first: a function inlined into a landing frame among them returns
	 * there later (fnt_filter_stray_exit).  Each stack has its own
	 * (fnt_filter_park) */
	struct fnt_gone gone;
	/* recording off (event.h, fnt_off_step): the switch off this thread
	 * last counted in (fnt_off_epoch), and the calls it entered since,
	 * less those that returned */
	uint32_t off_epoch;
	int32_t off_rel;
	/* those two when jmp[i]'s setjmp was made, the machine stack it was
	 * made on (stk_cur) and the written calls open on that stack then
	 * (here, not in jmp[], whose size the assembly's offsets of the
	 * fields after it depend on) */
	struct {
		uint32_t epoch;
		int32_t rel;
		uintptr_t stk;
		int32_t h;           /* (the written calls; hf: every call, as stk_from_h counts) */
		int32_t hf;
	} jmp_off[8];
	/* a jump to a buffer set on another machine stack: that stack's
	 * filter depth, shadow stack height, written calls open and count of
	 * calls entered while off (off: the jump was made while off), for when
	 * the thread is found on it (coro.c run_on); land: the written calls
	 * above the buffer found there, for the UNWIND after the SWITCH */
	struct {
		uintptr_t stk;
		int32_t fdepth;
		uint32_t ss_top;     /* its shadow stack's height (-pg, patchable) */
		uint32_t epoch;
		int32_t rel;
		int32_t h, land;
		uint8_t set, off;
	} jmp_pend;
	/* the record-time filters' depth when the machine stack in use was
	 * entered anew (filter.c, fnt_filter_unpark) */
	int32_t flt_base;
	/* the machine stack the thread was on before it entered the one in
	 * use, and the calls open on it then (every call: the record-time
	 * filters' depth when they are on), for a jump back to it (setjmp.c) */
	int32_t stk_from_h;
	int32_t stk_below;       /* written calls open under the stack in use when it was first entered
				  * (on the stacks it was entered from; 0: the thread's own): a chunk's `below` */
	uintptr_t stk_from;
	/* when fnt_foreign_event last found this thread itself, its gettid
	 * done: a clone of the thread's starts after it (coro.c) */
	uint64_t checked_at;
	uint8_t *erase_from;     /* where an erasure in progress starts (FNT_BUSY_ERASING) */
};

/* With the guard held and an event's bytes written at t->pos: the depth
 * moved on by delta for it, in the store that marks the move
 * (FNT_BUSY_MOVED); the caller then moves t->pos past the event. */
static inline __attribute__((always_inline)) void fnt_depth_moved_to(struct fnt_thread *t, int32_t depth)
{
	__asm__ volatile("" ::: "memory");
	__atomic_store_n(&t->depth_busy, (uint32_t)depth | (uint64_t)FNT_BUSY_MOVED << 32, __ATOMIC_RELAXED);
	__asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) void fnt_depth_move(struct fnt_thread *t, int32_t delta)
{
	fnt_depth_moved_to(t, t->depth + delta);
}

/* With the guard held, before an erasure takes back the records from
 * `from` on: the depth it leaves, marked (FNT_BUSY_ERASING) in one store;
 * 1.  0 when the guard is not a hook's (the runtime's own work, which a
 * jump out of a handler does not free): the caller sets the depth itself.
 * The caller sets busy back to 1 once the erasure is done. */
static inline int fnt_erase_mark(struct fnt_thread *t, uint8_t *from, int32_t depth)
{
	if (t->busy != 1)
		return 0;
	t->erase_from = from;
	__asm__ volatile("" ::: "memory");
	__atomic_store_n(&t->depth_busy, (uint32_t)depth | (uint64_t)FNT_BUSY_ERASING << 32, __ATOMIC_RELAXED);
	__asm__ volatile("" ::: "memory");
	return 1;
}

struct fnt_argspec;
struct fnt_shadow_entry {
	uintptr_t ret;           /* the real return address */
	uintptr_t slot;          /* where it lives on the stack */
	uintptr_t fn;            /* the function (for its exit event) */
	const struct fnt_argplan *plan;   /* its -A/-R spec, or NULL */
	uint32_t written;        /* FNT_SS_WRITTEN: its entry was written (else left out by the record-time
				  * filters); FNT_SS_KEPT: its return address was not swapped (fentry.h) */
	int32_t depth;           /* t->depth once it was written (library calls under -finstrument-functions) */
};

extern __thread struct fnt_thread fnt_self FNT_HIDDEN;
/* rotate.c: ./NAME, locked for this run (its children and exec'd images too);
 * an earlier run's trace there moves to ./NAME.old first.  0, or -1: not
 * ours, or a running record holds it */
int fnt_rotate_default(const char *name) FNT_HIDDEN;
extern uint32_t fnt_flags FNT_HIDDEN;     /* FNT_FLAG_*, read-only after init */
extern int fnt_use_tsc FNT_HIDDEN;
/* Non-zero when the assembly hooks and trampolines (arch/x86_64/hooks.S,
 * fentry.S) must leave an event to C: --callsite, record-time filters, no
 * cycle counter (or not set up yet), fnt_disable(), or some function with
 * values to capture (then the trampolines' assembly takes the values' own
 * common case, ENTER_VALUES_ASM, when this bit is the only one).  One
 * word, so that the hot path reads one word and tests it once.  FNT_FAST_PAUSED changes both ways at any time (each
 * change one atomic operation); the other bits are set at start-up and
 * only ever added to afterwards (the switch to the monotonic clock, the
 * first spec). */
extern uint32_t fnt_fast_off FNT_HIDDEN;
#define FNT_FAST_CALLSITE 1u
#define FNT_FAST_FILTER   2u
#define FNT_FAST_NO_TSC   4u
#define FNT_FAST_PAUSED   8u      /* fnt_disable(): the hooks record nothing */
#define FNT_FAST_ARGS     16u     /* fnt_argspec_count is not 0 */
/* how many times recording was switched off (fnt__set_enabled) */
extern uint32_t fnt_off_epoch FNT_HIDDEN;

/* A jump to a buffer set at off count `rel` in switch-off number `epoch`
 * (setjmp.c, coro.c): while recording is still off in the switch-off the
 * thread counts in, the count goes back to the buffer's, or to 0 when the
 * buffer was set before this switch-off. */
static inline __attribute__((always_inline)) void fnt_off_restore(struct fnt_thread *t, uint32_t epoch, int32_t rel)
{
	if (t->off_epoch == __atomic_load_n(&fnt_off_epoch, __ATOMIC_RELAXED))
		t->off_rel = epoch == t->off_epoch ? rel : 0;
}
/* fnt_disable() in force: non-zero */
static inline uint32_t fnt_paused(void)
{
	return __atomic_load_n(&fnt_fast_off, __ATOMIC_RELAXED) & FNT_FAST_PAUSED;
}
extern volatile int fnt__active;          /* exported: recording and not paused */
extern uint32_t fnt_ring_chunks FNT_HIDDEN;
extern uint32_t fnt_file_gen FNT_HIDDEN;      /* trace files opened by this process image (1, 2 ...) */   /* 0, or chunks per thread (ring mode) */

uint64_t fnt_mono_ns(void) FNT_HIDDEN;
/* clock.c: ticks, CLOCK_MONOTONIC and (real not NULL) CLOCK_REALTIME read
 * together, from the tightest of a few windows */
void clock_sample(uint64_t *ticks, uint64_t *mono, uint64_t *real) FNT_HIDDEN;
/* clock.c: the program took the TSC away (prctl PR_SET_TSC, seccomp strict) */
extern int fnt_clock_raw FNT_HIDDEN;          /* read CLOCK_MONOTONIC by system call */
extern __thread int fnt_no_clock FNT_HIDDEN;  /* this thread has no clock: it records nothing */
uint64_t fnt_clock_raw_ns(int clock) FNT_HIDDEN;   /* clock_gettime by system call */
uint64_t fnt_clock_fallback(void) FNT_HIDDEN; /* ns, or ticks made from ns after a switch */
void fnt_clock_prctl(int option, unsigned long arg) FNT_HIDDEN;   /* before prctl runs */
uint32_t fnt_trace_pid(void) FNT_HIDDEN;     /* the pid of this context's trace file, without a system call */
void fnt_clock_prctl_done(int option, unsigned long arg, long ret) FNT_HIDDEN;   /* after: ret is its result */
/* hostsafe.c: the signals whose handlers the runtime installs, which a
 * thread entering seccomp strict mode blocks (their work is system calls);
 * was: the mask before */
void fnt_own_signal(int sig) FNT_HIDDEN;
void fnt_own_signals_block(sigset_t *was) FNT_HIDDEN;

static inline uint64_t fnt_now(void)
{
	if (likely(fnt_use_tsc))
		return __builtin_ia32_rdtsc();
	return fnt_clock_fallback();
}

/* The hooks' slow paths.  All are entered with t->busy held and release it. */
/* first event of a thread, or a full chunk */
void fnt_slow_event(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit) FNT_HIDDEN;
/* a hook ran inside a signal handler that interrupted a hook: drop, count
 * (the one path entered without taking the guard: it is already held) */
void fnt_reentered(struct fnt_thread *t) FNT_HIDDEN;
/* the rest of an event the fast path started (busy is set, the clock read):
 * a cache miss, a delta that needs a TIME record, or a call site to add */
void fnt_rare_event(struct fnt_thread *t, uint64_t now, uintptr_t fn, uintptr_t site, int is_exit) FNT_HIDDEN;

/* the whole event when the clock is CLOCK_MONOTONIC (no usable TSC) */
void fnt_mono_event(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit) FNT_HIDDEN;
/* varint length by bit count (0..64), == fnt_varint_len() */
extern const uint8_t fnt_varint_len_table[65] FNT_HIDDEN;

/* With the guard held: make sure the thread has a chunk with `need` bytes
 * free at t->pos (starting the thread or a new chunk).  0, or -1 (dropped). */
int fnt_thread_room(struct fnt_thread *t, size_t need) FNT_HIDDEN;
/* the trace file: descriptor (checked, reopened if the program closed it)
 * or -1, its header mapping, its path */
int fnt_trace_fd(void) FNT_HIDDEN;
struct fnt_file_header *fnt_trace_header(void) FNT_HIDDEN;
const char *fnt_trace_path(void) FNT_HIDDEN;
/* mode of the files the runtime creates (FNTRACE_MODE, default 0600) and
 * of its directories (the same plus x wherever r): never world-readable
 * unless asked, since traces can hold captured strings */
extern unsigned fnt_file_mode FNT_HIDDEN;
#define FNT_DIR_MODE(m) ((m) | (((m) & 0444) >> 2))
/* ring.c: snapshots */
int fnt_snapshot_write(const char *name) FNT_HIDDEN;

/* drain.c: event chunks in the ring that `fntrace record` drains */
void fnt_drain_attach(uint32_t chunk_size, const char *trace_path, uint64_t ino, uint64_t dev) FNT_HIDDEN;
uint8_t *fnt_drain_take(uint64_t off) FNT_HIDDEN;      /* a slot for the chunk at off, or NULL */
void fnt_drain_unreserved(void) FNT_HIDDEN;            /* ...whose blocks are not reserved: record's to do */
void fnt_drain_release(uint8_t *m) FNT_HIDDEN;         /* that chunk is finished */
int fnt_drain_owns(const uint8_t *m) FNT_HIDDEN;
int fnt_drain_active(void) FNT_HIDDEN;
int fnt_drain_wanted(void) FNT_HIDDEN;         /* active, or a ring handed over, not claimed yet */
void fnt_drain_each(void (*fn)(const uint8_t *slot, uint64_t off, uint32_t len)) FNT_HIDDEN;
void fnt_drain_fork_child(void) FNT_HIDDEN;
void fnt_drain_fork_file(const char *trace_path, uint64_t ino, uint64_t dev) FNT_HIDDEN;
void fnt_drain_exit(void) FNT_HIDDEN;
/* _exit() & co are about to end the process: mark its file (runtime.c) */
void fnt_exit_note(int status, unsigned how) FNT_HIDDEN;
/* exec is about to replace the image (1), or failed (0): mark its file (runtime.c) */
void fnt_exec_note(int on) FNT_HIDDEN;
/* exec.c: the notes of a PT_NOTE segment (n bytes at buf) say the program
 * carries the runtime (linked with libfntrace.a: runtime.c's note) */
int fnt_runtime_note_in(const unsigned char *buf, size_t n) FNT_HIDDEN;

/* trace-signals.c: record --trace=off and --signal SIG@ACTION */
void fnt_trace_signals_init(void) FNT_HIDDEN;            /* at exit: copy out the slots if record is gone */
void fnt_snapshot_signal_init(void) FNT_HIDDEN;
/* exec.c: keep the settings children need (exec/spawn with an environment) */
void fnt_exec_init(const char *trace_dir) FNT_HIDDEN;
/* 1 if the trace directory's path is gone or names another directory than
 * the trace's (a mount namespace, a chroot) */
int fnt_trace_dir_elsewhere(void) FNT_HIDDEN;
/* the header of the file this context writes: a vfork child's own is
 * opened if it has none yet; NULL when not recording (tracefile.c) */
struct fnt_file_header *fnt_trace_header_open(void) FNT_HIDDEN;
void fnt_environ_early(void) FNT_HIDDEN;   /* before libc set up environ: the initial stack's */
/* prefix varint store (8-byte store, see format.h) and EXT heads */
static inline uint8_t *fnt_put_varint(uint8_t *p, uint64_t v)
{
	unsigned len = fnt_varint_len(v);
	uint64_t x = fnt_varint_pack(v, len);
	memcpy(p, &x, 8);
	return p + len;
}
/* With the guard held and room checked: the time part of an EXT event at
 * t->pos (a TIME record if needed); returns the delta for its head. */
uint64_t fnt_event_time(struct fnt_thread *t) FNT_HIDDEN;

/* meta stream (process-wide, under a lock); returns 0 or -1 (dropped, counted) */
int fnt_meta_append(unsigned type, const void *a, size_t alen, const void *b, size_t blen) FNT_HIDDEN;
void fnt_recording_note(void) FNT_HIDDEN;

/* setjmp/longjmp trampolines (arch/x86_64/setjmp.S): note, return the libc function */
void *fnt_note_setjmp(void *env, int which, long arg) FNT_HIDDEN;
void *fnt_note_longjmp(void *env, int which) FNT_HIDDEN;
/* setcontext back to a context getcontext saved on the same stack (coro.c) */
void fnt_note_setcontext(const void *ucp) FNT_HIDDEN;

/* record-time filters (filter.c) */
extern uint32_t fnt_filtering FNT_HIDDEN;   /* non-zero when any filter is on; read-only after init */
/* the calls open on the machine stack in use: every one, the
 * record-time filters' depth when they are on (the written calls are all
 * of them without filters) */
static inline int32_t fnt_stack_calls(const struct fnt_thread *t)
{
	return fnt_filtering ? t->flt.fdepth - t->flt_base : t->depth - t->stk_base;
}
#define FNT_FILTER_ON          1u
#define FNT_FILTER_DEPTH_ONLY  2u   /* no --module: a hidden call only moves the depth */
#define FNT_FILTER_HAS_F       4u   /* -F given */
#define FNT_FILTER_F_DEPTH_ONLY (FNT_FILTER_DEPTH_ONLY | FNT_FILTER_HAS_F)
#define FNT_FILTER_NO_NAMES    8u   /* no --no-thread */
#define FNT_FILTER_F_INLINE    (FNT_FILTER_ON | FNT_FILTER_F_DEPTH_ONLY | FNT_FILTER_NO_NAMES)

/* the -F/-N address set (filter.c): published whole, never modified once visible */
struct fnt_trig {                 /* the trigger actions of one function (-T FUNC@ACTION) */
	uint32_t flags;             /* FNT_TRIG_* */
	int32_t depth;              /* depth=N */
	uint64_t time_ticks;        /* time=DUR */
};
struct fnt_trig_slot {
	uint64_t addr;              /* 0: empty */
	struct fnt_trig g;
};
struct fnt_fset {
	uint64_t mask;              /* slots - 1 */
	uint32_t n_ranges;
	uint64_t *ranges;           /* [lo, hi) pairs of the traced modules (--module) */
	uint64_t trig_mask;         /* trig slots - 1 */
	struct fnt_trig_slot *trig; /* the functions with triggers, by address */
	uint64_t slots[];           /* addr | flags << 58; 0 empty */
};
extern struct fnt_fset *fnt_cur_set FNT_HIDDEN;

static inline uint64_t fnt_fset_hash(uint64_t a)
{
	return (a * 0x9E3779B97F4A7C15ull) >> 20;
}

/* the -F (1) / -N (2) bits of a function address */
static inline unsigned fnt_fset_lookup(const struct fnt_fset *s, uintptr_t fn)
{
	if (!s)
		return 0;
	for (uint64_t j = fnt_fset_hash(fn) & s->mask;; j = (j + 1) & s->mask) {
		uint64_t e = s->slots[j];
		if (!e)
			return 0;
		if ((e & ((1ull << 57) - 1)) == fn)
			return (unsigned)(e >> 58);
	}
}
extern uint32_t fnt_name_gen FNT_HIDDEN;    /* bumped when a thread is renamed */
void fnt_filter_init(void) FNT_HIDDEN;      /* parse FNTRACE_FILTERS (at start-up) */
void fnt_filter_write_meta(void) FNT_HIDDEN; /* the FILTERS meta record */
/* returns 1 when the event must not be written (filtered out, or a short
 * call erased); entered with t->busy held */
int fnt_filter_event(struct fnt_thread *t, uintptr_t fn, int is_exit) FNT_HIDDEN;
/* fnt_disable() in force: only follow the call depth */
void fnt_filter_paused(struct fnt_thread *t, uintptr_t fn, int is_exit) FNT_HIDDEN;
/* the call just entered (its level counted by the filters, not written) is
 * one entered while recording is off: a trace_off trigger's own */
void fnt_filter_off_entered(struct fnt_thread *t) FNT_HIDDEN;
/* whether the innermost open call is written (a -H call's callees are:
 * one level up), for fnt_capture_stack() */
int fnt_filter_inner_written(const struct fnt_thread *t) FNT_HIDDEN;
/* the filters' note of a call open at one fdepth (t->flt_notes) */
struct fnt_fnote {
	uintptr_t fn;           /* its function; 0: not known */
	int32_t wd;             /* the written calls open before its entry (t->depth) */
	uint32_t pad;
};
#define FNT_FLT_FIRST 512u          /* notes mapped at a thread's first (8 KiB) */
#define FNT_FLT_MAX (1u << 20)      /* the deepest noted, doubling up to it (16 MiB) */
#define FNT_FLT_SCAN 1024           /* the calls a landing pad or an exit looks through */
/* a note at fdepth d past those mapped: the pages mapped or grown */
void fnt_fn_note_grow(struct fnt_thread *t, int32_t d, uintptr_t fn) FNT_HIDDEN;
/* fn entered at fdepth d, with the count of written calls open before it,
 * for an exception's landing pad and the exits that follow one (every
 * entry the filters see, also the ones event.h decides without filter.c) */
static inline __attribute__((always_inline)) void fnt_fn_note(struct fnt_thread *t, int32_t d, uintptr_t fn)
{
	if (__builtin_expect((uint32_t)d < t->flt_cap, 1)) {
		t->flt_notes[d].fn = fn;
		t->flt_notes[d].wd = t->depth;
	} else {
		fnt_fn_note_grow(t, d, fn);
	}
}
/* the function noted at the innermost open call (0: not known) */
static inline __attribute__((always_inline)) uintptr_t fnt_fn_noted_top(const struct fnt_thread *t)
{
	uint32_t d = (uint32_t)t->flt.fdepth;
	return d < t->flt_cap ? t->flt_notes[d].fn : 0;
}
/* module map changed: (re)resolve the globs; called under the scan lock */
struct fnt_module_ref { const char *path; uint64_t bias, lo, hi; };
void fnt_filter_modules(const struct fnt_module_ref *m, int n) FNT_HIDDEN;
void fnt_filter_longjmp(struct fnt_thread *t, int32_t fdepth) FNT_HIDDEN;
/* an exception lands in the innermost open call of fn (fentry.c's _Unwind_SetIP) */
int fnt_filter_landing(struct fnt_thread *t, uintptr_t fn) FNT_HIDDEN;
/* an exit of a function that is not the innermost open call's: 1 to skip it */
int fnt_filter_stray_exit(struct fnt_thread *t, uintptr_t fn, int write) FNT_HIDDEN;
/* an exit to skip: not the innermost open call's, and filter.c says so
 * (write 0: while recording is off, nothing is written) */
static inline __attribute__((always_inline)) int fnt_exit_skipped(struct fnt_thread *t, uintptr_t fn, int write)
{
	return unlikely(fnt_fn_noted_top(t) != fn) && fnt_filter_stray_exit(t, fn, write);
}
int fnt_filter_unwind_erase(struct fnt_thread *t, int32_t depth) FNT_HIDDEN;
int fnt_trigger_unwind_erase(struct fnt_thread *t, int32_t depth) FNT_HIDDEN;
/* coroutines (coro.c): the state of the stack the thread leaves goes into
 * *p; the state of the stack it runs on next comes from *p (a stack new to
 * the filters, p->valid 0: its calls start at the depth of the switch,
 * outside any -F, -N or -C subtree, as the reader's filters start them);
 * a stack dropped with its state gives its memory back */
void fnt_filter_park(struct fnt_thread *t, struct fnt_filter_park *p) FNT_HIDDEN;
void fnt_filter_unpark(struct fnt_thread *t, const struct fnt_filter_park *p) FNT_HIDDEN;
void fnt_filter_park_drop(struct fnt_filter_park *p) FNT_HIDDEN;
/* vfork: the child's -H bits, a copy of its parent's (the memory is shared,
 * and a hidden call the child enters and never leaves must not mark the
 * parent's); given back with its state (child: the child's, parent: the
 * parent's saved state) */
void fnt_filter_vfork_child(struct fnt_filter_state *f) FNT_HIDDEN;
void fnt_filter_vfork_done(struct fnt_filter_state *child, const struct fnt_filter_state *parent) FNT_HIDDEN;

/* triggers (trigger.c): -T FUNC@ACTION.  trace_on/off, backtrace, snapshot,
 * finish and time= act in the rare path: a function with a trigger is kept
 * in the address cache with FNT_CACHE_TAG set, so that every event of it
 * misses the cache; functions without one never pay.  depth= and
 * filter/notrace/hide act through the filters above. */
#define FNT_TRIG_ON        1u
#define FNT_TRIG_OFF       2u
#define FNT_TRIG_BACKTRACE 4u
#define FNT_TRIG_FINISH    8u
#define FNT_TRIG_SNAPSHOT  16u
#define FNT_TRIG_TIME      32u
#define FNT_TRIG_DEPTH     64u
#define FNT_TRIG_RARE      (FNT_TRIG_ON | FNT_TRIG_OFF | FNT_TRIG_BACKTRACE | FNT_TRIG_FINISH | \
			    FNT_TRIG_SNAPSHOT | FNT_TRIG_TIME)
#define FNT_CACHE_TAG (1ull << 63)  /* in t->cache: the reader has the address; the writer always misses */

/* the slot of fn's set of the address cache that holds it (compared
 * under mask: ~FNT_CACHE_TAG finds a tagged one too), or -1 */
static inline int fnt_cache_find(const struct fnt_thread *t, uintptr_t fn, uintptr_t mask)
{
	unsigned slot = fnt_slot(fn);
	if ((t->cache[slot] & mask) == fn)
		return (int)slot;
	if ((t->cache[slot ^ 1] & mask) == fn)
		return (int)(slot ^ 1);
	return -1;
}
extern uint32_t fnt_trig_flags FNT_HIDDEN;    /* every action some trigger has; 0: no trigger */
const struct fnt_trig *fnt_trigger_find(uintptr_t fn) FNT_HIDDEN;
/* with the guard held, before an event of a function with triggers is
 * written: 1 when it is not to be written (trace_off, a short time= call
 * erased) */
int fnt_trigger_before(struct fnt_thread *t, const struct fnt_trig *g, uint64_t now, uintptr_t fn,
		       int is_exit) FNT_HIDDEN;
/* after it was written (backtrace, snapshot, finish) */
void fnt_trigger_after(struct fnt_thread *t, const struct fnt_trig *g, uintptr_t fn, int is_exit) FNT_HIDDEN;
/* recording is off: 1 when fn's trace_on trigger turned it on */
int fnt_trigger_paused(uintptr_t fn) FNT_HIDDEN;
extern int fnt_trig_finished FNT_HIDDEN;    /* a finish trigger fired: recording is off for good */
uint64_t fnt_ns_to_ticks(uint64_t ns) FNT_HIDDEN;
void fnt_trigger_thread_exit(struct fnt_thread *t) FNT_HIDDEN;
void fnt_trigger_thread_start(struct fnt_thread *t) FNT_HIDDEN;
void fnt_erase_tail(struct fnt_thread *t, uint8_t *from) FNT_HIDDEN;   /* filter.c */
/* api.c: the calling thread's stack as an EXT_STACK record (guard held,
 * room not yet checked), from the frame of function fn outwards (the whole
 * stack when no frame is fn's) */
void fnt_stack_put(struct fnt_thread *t, uintptr_t fn) FNT_HIDDEN;
/* trace-signals.c: a snapshot named PREFIX-N, N counting from 1 in *count */
void fnt_snapshot_numbered(const char *prefix, unsigned *count) FNT_HIDDEN;
void fnt_filter_thread_exit(struct fnt_thread *t) FNT_HIDDEN;   /* saved buffer positions dropped (fork) */
void fnt_filter_thread_gone(struct fnt_thread *t) FNT_HIDDEN;   /* and the rest (thread exit) */

/* writes the body of a record at dst (at most the max its caller gave);
 * returns its length */
typedef size_t fnt_fill_fn(uint8_t *dst, const void *arg);
#define FNT_VARINT2_MAX 16383u   /* the largest body whose length fits a 2-byte varint */
/* with t->busy held: write an entry or exit event followed by an ARGS or
 * RETVAL record whose body fill(dst, arg) writes in place (at most max
 * bytes); starts a chunk when needed.  Returns 0, or -1 when nothing was
 * written. */
int fnt_event_ext(struct fnt_thread *t, uintptr_t fn, uintptr_t site, int is_exit, unsigned ext, size_t max,
		  fnt_fill_fn *fill, const void *arg) FNT_HIDDEN;
/* with t->busy held: an ARGS/RETVAL record right after the event just
 * written, if it fits the chunk (dropped otherwise) */
int fnt_put_ext(struct fnt_thread *t, unsigned ext, size_t max, fnt_fill_fn *fill, const void *arg) FNT_HIDDEN;
/* with t->busy held: record that the n innermost frames were left */
void fnt_put_unwind(struct fnt_thread *t, uint32_t n) FNT_HIDDEN;
void fnt_put_unwind_to(struct fnt_thread *t, uintptr_t fn, uintptr_t ip) FNT_HIDDEN;
int fnt_coro_named(const struct fnt_thread *t) FNT_HIDDEN;
int fnt_coro_entered_from(uintptr_t stack, uintptr_t *from, int32_t *from_h) FNT_HIDDEN;
void fnt_put_switch(struct fnt_thread *t, uintptr_t stack) FNT_HIDDEN;
uint8_t *fnt_put_switch_at(struct fnt_thread *t, uint8_t *p, uintptr_t stack) FNT_HIDDEN;
/* the written calls open on the machine stack in use */
static inline int32_t fnt_stack_open(const struct fnt_thread *t)
{
	return t->depth - t->stk_base;
}
/* A -pg/patchable return whose slot is on no frame of the shadow stack in
 * use (coro.c): 1 when a parked stack holds it, which is now the stack in
 * use (a coroutine returned to its uc_link, or a fiber another thread
 * parked) */
int fnt_coro_find_slot(struct fnt_thread *t, uintptr_t slot) FNT_HIDDEN;
/* ...and when none does: the frame on the shadow stack of another thread
 * that left that machine stack unseen (a hand-written switch with no event
 * since), copied into *e; 1 if found */
int fnt_coro_borrow(const struct fnt_thread *t, uintptr_t slot, struct fnt_shadow_entry *e) FNT_HIDDEN;
/* the thread exits: its own stack leaves the registry; a forked child:
 * switches that other threads were making are gone */
void fnt_coro_thread_exit(struct fnt_thread *t) FNT_HIDDEN;
/* the thread has a shadow stack: fnt_coro_borrow may look into it */
void fnt_coro_runner(struct fnt_thread *t) FNT_HIDDEN;
void fnt_coro_fork_child(void) FNT_HIDDEN;
/* free the thread's shadow stack (thread exit) */
void fnt_shadow_release(struct fnt_thread *t) FNT_HIDDEN;
/* the frames from index top up were left (a longjmp): off the shadow
 * stack, their return addresses kept for a last resort (fentry.c) */
void fnt_shadow_cut(struct fnt_thread *t, uint32_t top) FNT_HIDDEN;
/* a jump left the machine stack in use for good: its frames stay, closed
 * (fentry.c) */
void fnt_shadow_close(struct fnt_thread *t) FNT_HIDDEN;
/* ...and every frame it holds is such a one */
int fnt_shadow_all_closed(const struct fnt_thread *t) FNT_HIDDEN;
/* the frames of a shadow stack that goes: into the graveyard (fentry.c) */
void fnt_shadow_bury(const struct fnt_shadow_entry *ss, uint32_t top) FNT_HIDDEN;

/* argument specs (runtime/argspec.c) */
extern uint32_t fnt_argspec_count FNT_HIDDEN;     /* functions with a spec; 0 on the common path */
void fnt_argspec_init(void) FNT_HIDDEN;
int fnt_argspec_wanted(void) FNT_HIDDEN;     /* specs were given */
void fnt_argspec_module(const char *path, uint64_t bias) FNT_HIDDEN;

/* A function's -A/-R spec pre-decoded once, where its address is resolved
 * (argspec.c), for the trampolines' fast path (fentry.c): each item with a
 * payload says where its value is and how it is written, and the worst
 * case of each record's body is known, so one bounds check covers the
 * event and its record.  Items of a kind the fast path does not know clear
 * `fast`: that record goes through the spec (args_payload) instead. */
/* words of the trampolines' register frame (struct fnt_regs, fentry.c) */
#define FNT_REGS_ARG(i)  (i)              /* rdi rsi rdx rcx r8 r9: i < 6 */
#define FNT_REGS_RAX     6
#define FNT_REGS_XMM(k)  (10 + 2 * (k))   /* the low 8 bytes of xmm k */
#define FNT_PLAN_STACK  0x80u     /* src: stack slot (src & 0x7f) above the return address */
enum fnt_plan_kind { FNT_PLAN_RAW = 0, FNT_PLAN_STR = 1 };
struct fnt_argplan_list {
	uint8_t n;                 /* items with a payload */
	uint8_t fast;              /* every item is RAW or STR */
	uint8_t n_str;             /* STR items among them */
	uint8_t len_len;           /* bytes of the body's length varint, for the worst case */
	uint8_t gp;                /* every source is a general register or the stack (no xmm) */
	uint8_t plain;             /* fast, gp and no string: the trampolines' assembly writes it */
	uint16_t max;              /* body bytes at most */
	uint8_t src[FNT_ARGS_MAX];   /* word of struct fnt_regs, or FNT_PLAN_STACK | slot word */
	uint8_t kind[FNT_ARGS_MAX];
	uint8_t size[FNT_ARGS_MAX];  /* RAW: the item's bytes in the payload (format version 4) */
};
/* The return list in brief, beside args in the plan's first cache line,
 * which the entry has just read: what the return trampoline's assembly
 * needs in the common case without the second line (fentry.S,
 * EXIT_VALUES_ASM) */
#define FNT_RET1_NONE 0     /* no RETVAL record (ret.max is 0) */
#define FNT_RET1_ONE  1     /* one fixed-size item of a general register: src, size */
#define FNT_RET1_LIST 2     /* anything else: the whole list, ret */
struct fnt_argplan_ret1 {
	uint8_t kind, src, size, pad[5];
};
struct fnt_argplan {
	struct fnt_argplan_list args;
	struct fnt_argplan_ret1 ret1;
	struct fnt_argplan_list ret;
	const struct fnt_argspec *spec;
} __attribute__((aligned(64)));
void fnt_argspec_fork_child(void) FNT_HIDDEN;

/* the functions with a spec, by address: open addressing, filled at
 * start-up and at each dlopen, addresses published last (argspec.c) */
#define FNT_ARGSPEC_TABLE_BITS 16
struct fnt_argspec_entry {
	uintptr_t addr;
	const struct fnt_argplan *plan;
	const char *text;
};
extern struct fnt_argspec_entry *fnt_argspec_table FNT_HIDDEN;

static inline uint32_t fnt_argspec_hash(uintptr_t a)
{
	return (uint32_t)((a * 0x9E3779B97F4A7C15ull) >> (64 - FNT_ARGSPEC_TABLE_BITS));
}

/* fn's plan, or NULL; calls nothing (the fast trampolines use it) */
static inline const struct fnt_argplan *fnt_argspec_find(uintptr_t fn)
{
	const struct fnt_argspec_entry *t = __atomic_load_n(&fnt_argspec_table, __ATOMIC_ACQUIRE);
	const uint32_t mask = (1u << FNT_ARGSPEC_TABLE_BITS) - 1;
	if (!t)
		return NULL;
	for (uint32_t h = fnt_argspec_hash(fn), i = 0; i <= mask; i++, h = (h + 1) & mask) {
		uintptr_t a = __atomic_load_n(&t[h].addr, __ATOMIC_ACQUIRE);
		if (a == fn)
			return t[h].plan;
		if (!a)
			return NULL;
	}
	return NULL;
}

/* -fpatchable-function-entry: patch the module's pads (runtime/patch.c);
 * -P on code without instrumentation: move its prologues (prologue.c) */
void fnt_patch_module(const char *path, uint64_t bias) FNT_HIDDEN;
/* library calls, pads and -P: record the modules dlopen loads before their
 * constructors run (modules.c's hook on the dynamic linker) */
void fnt_modules_watch_loads(void) FNT_HIDDEN;
struct fnt_patch_site {
	uintptr_t at;            /* the 5 bytes switched */
	uintptr_t resume;        /* where a thread that meets the int3 of a switch at `at` goes on */
	uint8_t orig[5], call[5];
	uint8_t len;             /* bytes of the site (5; a prologue's moved instructions, more) */
	uint8_t nb;              /* moved instructions after the first: a thread stopped at */
	uint8_t from[7], to[7];  /* at + from[i] goes on at resume + to[i] */
};
extern int fnt_patch_noted FNT_HIDDEN;   /* -P wrote what it did: keep the file even without events */
/* a PATCH record (doc/format.md): what -P or the pads did to a module */
void fnt_patch_note(unsigned what, uint64_t addr, uint32_t count, const char *name) FNT_HIDDEN;
void fnt_patch_sites_add(const struct fnt_patch_site *add, size_t n) FNT_HIDDEN;
/* a module was unloaded (dlclose): its sites leave the table, so that no
 * later switch writes into memory that is no longer it */
void fnt_patch_module_gone(uintptr_t lo, uintptr_t hi) FNT_HIDDEN;
int fnt_patch_glob_match(const char *name, char **globs, int n_globs) FNT_HIDDEN;
int fnt_patch_globs(char ***globs) FNT_HIDDEN;   /* the -P globs, split once */
uint8_t *fnt_near_alloc(uintptr_t lo, uintptr_t hi, size_t size) FNT_HIDDEN;
int fnt_near_seal(void *p, size_t size) FNT_HIDDEN;
struct fnt_elf;
int fnt_prologue_wanted(const struct fnt_elf *e, const char *path) FNT_HIDDEN;
void fnt_prologue_module(const struct fnt_elf *e, const char *path, uint64_t bias, char **globs,
			 int n_globs) FNT_HIDDEN;

/* elf.c: a module's file, mapped read-only, every offset checked */
struct fnt_elf {
	const uint8_t *map;
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
};
int fnt_elf_open(struct fnt_elf *e, const char *path) FNT_HIDDEN;
void fnt_elf_close(struct fnt_elf *e) FNT_HIDDEN;
/* the first section called name after `after` (NULL: from the start) */
const Elf64_Shdr *fnt_elf_section(const struct fnt_elf *e, const char *name, const Elf64_Shdr *after) FNT_HIDDEN;
/* every defined symbol of type `type` (STT_FUNC...) of .symtab (else .dynsym) */
void fnt_elf_symbols(const struct fnt_elf *e, unsigned type,
		     void (*fn)(void *ctx, const Elf64_Sym *sym, const char *name), void *ctx) FNT_HIDDEN;
/* the file vaddr range of its PT_LOAD segments; 0, or -1 without any */
int fnt_elf_load_range(const struct fnt_elf *e, uint64_t *lo, uint64_t *hi) FNT_HIDDEN;
/* every defined function symbol of .symtab (else .dynsym), file vaddr */
void fnt_elf_functions(const struct fnt_elf *e, void (*fn)(void *ctx, const char *name, uint64_t vaddr),
		       void *ctx) FNT_HIDDEN;
/* which instrumentation the object's code calls (FNT_ELF_* bits) */
#define FNT_ELF_CYG       1u   /* __cyg_profile_func_enter */
#define FNT_ELF_FENTRY    2u   /* __fentry__ */
#define FNT_ELF_PATCHABLE 4u   /* a __patchable_function_entries section */
unsigned fnt_elf_hooks(const struct fnt_elf *e, const char *path) FNT_HIDDEN;
/* whether path names the runtime's own shared object, whatever its file is
 * called (FNTRACE_LIBRARY may name any copy): never hooked nor patched */
int fnt_elf_is_runtime(const char *path) FNT_HIDDEN;
/* the GOT slots of its calls into other objects (name, slot's file vaddr);
 * defined: also the slots of its own interposable functions */
void fnt_elf_imports(const struct fnt_elf *e, int defined, void (*fn)(void *ctx, const char *name, uint64_t vaddr),
		     void *ctx) FNT_HIDDEN;
/* the version an undefined .dynsym symbol asks for ("GLIBC_2.2.5"), or NULL */
const char *fnt_elf_import_version(const struct fnt_elf *e, const char *name) FNT_HIDDEN;

/* library calls (runtime/libcall.c) */
void fnt_libcall_init(void) FNT_HIDDEN;
int fnt_libcall_on(void) FNT_HIDDEN;     /* library calls are traced (not --no-libcall) */
/* the module's calls are traced: hook its GOT slots (new module, scan lock held) */
void fnt_libcall_module(const char *path, uint64_t bias) FNT_HIDDEN;
/* a forked child's trace: the slots hooked so far (FNT_META_LIBCALL) */
void fnt_libcall_fork_child(void) FNT_HIDDEN;
/* 0: the object's slots are not hooked; 1: its calls into other objects
 * are; 2: (--nest-libcall, an uninstrumented library) its calls to its
 * own interposable functions too */
int fnt_libcall_traced(const struct fnt_elf *e, const char *path) FNT_HIDDEN;
/* the library function named so is recorded as a zero-length call (it
 * returns twice or switches contexts: setjmp, getcontext, vfork...): its
 * exit comes before it runs, so it has no return value to capture */
int fnt_libcall_zero(const char *name) FNT_HIDDEN;
void fnt_patch_fork_child(void) FNT_HIDDEN;

/* hostsafe.c: keeping out of the host's way (doc/safety.md) */
/* count n events of thread t that will be missing from the trace, under the
 * file header's counter for their kind (slow paths only) */
enum fnt_lost_kind { FNT_LOST_REENTRANT, FNT_LOST_SHADOW, FNT_LOST_UNSAFE, FNT_LOST_NOSPACE, FNT_LOST_STACKS,
		     FNT_LOST_ADDR, FNT_LOST_NOCLOCK };
void fnt_lost_events(struct fnt_thread *t, enum fnt_lost_kind kind, uint64_t n) FNT_HIDDEN;
#define FNT_FD_MIN 800    /* the runtime's descriptors are never below this */
/* move fd to a number >= FNT_FD_MIN (close-on-exec); -1 (fd closed) if none */
int fnt_fd_high(int fd) FNT_HIDDEN;
/* 1 when the file may grow to `end` bytes under RLIMIT_FSIZE; 0 (EFBIG) if not */
int fnt_fsize_allows(off_t end) FNT_HIDDEN;
/* fstat into a per-thread buffer (not the stack); NULL on failure */
struct stat;
const struct stat *fnt_fstat(int fd) FNT_HIDDEN;
/* the default chunk size, smaller under a small RLIMIT_FSIZE */
uint32_t fnt_fsize_chunk(uint32_t size) FNT_HIDDEN;
/* the asynchronous signals blocked (1; 0: not, a seccomp filter forbids
 * it), then the mask given back as it was */
int fnt_async_block(uint64_t *was) FNT_HIDDEN;
void fnt_async_unblock(const uint64_t *was) FNT_HIDDEN;
/* thread cancellation off while the runtime makes system calls that are
 * cancellation points in glibc (a traced call, a dlopen, is none): 1 if it
 * was turned off, then its state given back */
int fnt_cancel_off(int *was) FNT_HIDDEN;
void fnt_cancel_back(int was) FNT_HIDDEN;
int fnt_cancel_async(void) FNT_HIDDEN;   /* (with it off) the type is asynchronous */
/* the program jumps out of signal handlers that land in the runtime's
 * work (a longjmp found the guard held, setjmp.c): from then on a stack
 * switch, which such a jump cannot leave half made, blocks them (coro.c) */
extern int fnt_handler_jumps FNT_HIDDEN;
/* open a file the runtime reads: never blocks, regular files only; fd or -1 */
struct stat;
int fnt_open_knob_file(const char *path, struct stat *st) FNT_HIDDEN;
/* a setuid/setgid/capability program: its environment is not to be trusted */
int fnt_secure_exec(void) FNT_HIDDEN;
/* start-up without /proc (hostsafe.c): argv and envp as the kernel laid them
 * out on the first stack (0, or -1 when they cannot be found for sure); the
 * program's path (/proc/self/exe, else AT_EXECFN resolved; "" if neither) */
int fnt_initial_stack(char ***argv, char ***envp) FNT_HIDDEN;
void fnt_self_exe(char *buf, size_t size) FNT_HIDDEN;
/* the inode of this process's pid namespace, 0 unknown (set with its trace file) */
extern uint64_t fnt_pid_ns FNT_HIDDEN;
/* every knob is read with secure_getenv (NULL in a secure-execution process) */
#define getenv(name) secure_getenv(name)

/* Which machine stack, which process (coro.c, clone.c).  The hooks take
 * an event for this thread when its stack pointer lies in
 * [stk_lo, stk_lo + stk_span], a window around the stack pointers seen on
 * the stack in use.  fnt_fork_mask is all ones, but reads as zero in a
 * process cloned without CLONE_VM by a raw system call, which no wrapper
 * saw (its page is MADV_WIPEONFORK): then every event takes the rare path,
 * which gives that process its own file first. */
extern uint64_t fnt_fork_page[512] FNT_HIDDEN;
#define fnt_fork_mask (fnt_fork_page[0])
/* the rare path: 1 when the event is not this thread's to write (another
 * context on its TLS: `events` are counted as lost), else 0 */
int fnt_stack_moved(struct fnt_thread *t, uintptr_t sp, unsigned events) FNT_HIDDEN;
/* sandbox.c: the system calls of the runtime's own that a seccomp filter
 * of the program forbids (bit nr), which the runtime then does without */
#define FNT_DENIED_WORDS 8
extern uint64_t fnt_denied_mask[FNT_DENIED_WORDS] FNT_HIDDEN;
static inline int fnt_denied(long nr)
{
	return (unsigned long)nr < 64 * FNT_DENIED_WORDS &&
	       ((__atomic_load_n(&fnt_denied_mask[nr / 64], __ATOMIC_RELAXED) >> (nr % 64)) & 1);
}
/* fstat can tell the trace file's descriptor from another */
static inline int fnt_fstat_denied(void)
{
	return fnt_denied(SYS_newfstatat) || fnt_denied(SYS_fstat);
}
int fnt_file_calls_denied(void) FNT_HIDDEN;
int fnt_snapshot_calls_denied(void) FNT_HIDDEN;
int fnt_exec_calls_denied(void) FNT_HIDDEN;
void fnt_sandbox_filter(const void *prog) FNT_HIDDEN;
void fnt_sandbox_done(int installed) FNT_HIDDEN;
int fnt_sandbox_seccomp_ok(unsigned long flags, long ret) FNT_HIDDEN;
void fnt_sandbox_prctl(int option, unsigned long arg, unsigned long prog) FNT_HIDDEN;
void fnt_sandbox_seccomp(unsigned long op, unsigned long prog) FNT_HIDDEN;
/* the calling thread's id without the system call (threads.c): libc's
 * descriptor, or the one the thread's state holds */
uint32_t fnt_tid_cached(void) FNT_HIDDEN;

/* A system call by the instruction itself: not through libc, whose wrappers
 * set errno (which a vfork child shares with its parent) and whose
 * syscall() the runtime wraps (clone.c; its first call looks the real one
 * up with dlsym, deep for a signal handler's stack).  Returns the kernel's
 * result, -errno on failure. */
static inline long fnt_sys3(long n, long a, long b, long c)
{
	long r;
	if (__builtin_expect(fnt_denied(n), 0))
		return -EPERM;          /* as a filter that says EPERM (sandbox.c) */
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}
/* the same with six arguments */
static inline long fnt_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
	if (__builtin_expect(fnt_denied(n), 0))
		return -EPERM;
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}
/* copy n bytes at (our own) address from to dst without ever faulting:
 * process_vm_readv on ourselves, which fails (-errno) or stops short
 * (what it copied) where the memory is not readable; by the instruction,
 * a frame less than libc's on a path that runs in signal handlers */
static inline long fnt_read_self(void *dst, const void *from, size_t n)
{
	struct fnt_iov { void *base; size_t len; } local = { dst, n }, remote = { (void *)from, n };
	return fnt_sys6(SYS_process_vm_readv, fnt_sys3(SYS_getpid, 0, 0, 0), (long)&local, 1, (long)&remote, 1, 0);
}
/* the calling thread's name (16 bytes, NUL-terminated) by the instruction
 * (fnt_sys3): not through the runtime's own prctl wrapper (filter.c),
 * whose variadic frame and first dlsym are deep for a signal handler's
 * small stack (doc/safety.md) */
static inline void fnt_thread_name(char *name)
{
	fnt_sys3(SYS_prctl, 16 /* PR_GET_NAME */, (long)name, 0);
}
/* the caller's thread id, by the instruction (fnt_sys3): safe in a signal
 * handler and in a vfork child */
static inline uint32_t fnt_gettid(void)
{
	if (__builtin_expect(fnt_denied(SYS_gettid), 0))
		return fnt_tid_cached();        /* (a raw clone's child is then taken for its parent) */
	return (uint32_t)fnt_sys3(SYS_gettid, 0, 0, 0);
}

/* the thread whose thread-local storage the caller runs on (threads.c):
 * not the caller when it is a raw clone's child on its parent's TLS */
void fnt_tls_owner_init(void) FNT_HIDDEN;
uint32_t fnt_tls_owner(void) FNT_HIDDEN;

static inline __attribute__((always_inline)) int fnt_stack_check(struct fnt_thread *t, uintptr_t sp, unsigned events)
{
	return unlikely(sp - t->stk_lo > (t->stk_span & fnt_fork_mask)) && fnt_stack_moved(t, sp, events);
}
/* A context on this thread's TLS whose stack pointers the window takes
 * (a hand-made vfork: clone(CLONE_VM|CLONE_VFORK) by a `syscall`
 * instruction, the child on its parent's own stack) shares everything with
 * the thread but its thread id, which only a system call reads.  What
 * gives it away at its first event is time: a clone takes microseconds
 * (25,000 ticks at least, measured here), so the child's first event comes
 * at least FNT_GAP_TICKS after the parent's last.  The hot paths send every
 * event that follows such a gap to the rare path (in place of their old
 * bound, 2^47, which only asked for a TIME record), where
 * finish_event_g asks fnt_foreign_event.  FNT_GAP_NS is the same bound
 * under the monotonic clock. */
#define FNT_GAP_TICKS (1ull << 13)
#define FNT_GAP_NS    (1ull << 11)
/* with the guard held, after a gap (`pause` ticks or ns since the
 * thread's last event, 0 if unknown): 0 when this is the thread; 2 when it
 * is a hand-made vfork's child, now on a state and file of its own
 * (vfork.c, fnt_vfork_adopt); 1 when it is another context (its event was
 * counted as lost; the window is emptied, so that its next events meet
 * fnt_stack_moved, and the thread's own next event fills the window
 * again, leaving out the other's stack pointers).  After a pause long
 * enough for a clone, the thread's window loses what lies below the
 * caller's frame, until its calls go deeper. */
int fnt_foreign_event(struct fnt_thread *t, int is_exit, uint64_t pause) FNT_HIDDEN;
/* The record-time filters passed an entry (fnt_filter_event) that turns
 * out to be such a context's: take back what they did to the thread's
 * depth and -F root.  (-C, -t and depth= triggers are not taken back.) */
static inline void fnt_filter_unenter(struct fnt_filter_state *f)
{
	if (f->f_root == f->fdepth)
		f->f_root = 0;
	f->fdepth--;
}
/* count n events of such a context as lost, in the file header only (the
 * thread's own counters are not its to touch) */
void fnt_foreign_lost(unsigned n) FNT_HIDDEN;
/* this thread stops recording for good; its events are counted as lost (slowpath.c) */
void fnt_thread_stop(struct fnt_thread *t) FNT_HIDDEN;
/* the window was emptied by fnt_foreign_event */
static inline int fnt_stack_foreign(const struct fnt_thread *t)
{
	return t->stk_max && !t->stk_span;
}
void fnt_fork_mask_init(void) FNT_HIDDEN;     /* start-up, and in a forked child */
int fnt_raw_fork_check(void) FNT_HIDDEN;      /* the page was wiped: this is a raw clone's child (1) */
void fnt_raw_fork_child(void) FNT_HIDDEN;     /* fork.c: the fork treatment, no prepare step ran */

/* the vector state the trampolines' general path keeps beyond xmm0-15
 * (xstate.c; read by fentry.S's SAVE_ALL) */
#define FNT_XSAVE_INUSE 1       /* XGETBV 1 tells which components are in use */
#define FNT_XSAVE_COMPACT 2     /* XSAVEC */
#define FNT_XSAVE_UPPER ((1u << 2) | (1u << 6))   /* the components whose use makes the save */
extern uint32_t fnt_xsave_mask FNT_HIDDEN, fnt_xsave_size FNT_HIDDEN, fnt_xsave_how FNT_HIDDEN;
void fnt_xstate_init(void) FNT_HIDDEN;

/* with the guard held for a child: give it back if the child is gone (clone.c) */
void fnt_tls_check(struct fnt_thread *t) FNT_HIDDEN;
/* hold the guard for a child that runs on this thread's TLS, give it back (clone.c) */
void fnt_tls_share(void) FNT_HIDDEN;
void fnt_tls_unshare(void) FNT_HIDDEN;
/* vfork children (vfork.c): before the system call (returns how the child
 * is handled), in the child, in the parent once the child is gone */
int fnt_vfork_prepare(void) FNT_HIDDEN;
void fnt_vfork_child(int how) FNT_HIDDEN;
void fnt_vfork_resume(int how) FNT_HIDDEN;
/* a hand-made vfork's child, found at its first event: lend it the state (1) */
int fnt_vfork_adopt(struct fnt_thread *t, int unenter) FNT_HIDDEN;
/* a state lent so: 1 the child runs, 2 given back to the parent thread
 * now, -1 another context, 0 not lent; sp: where the caller's stack is (the
 * parent has left the frames whose return address lies at or below it) */
int fnt_vfork_lent(struct fnt_thread *t, uintptr_t sp) FNT_HIDDEN;
/* in such a child, just lent the state at the return from the frame whose
 * return address is at slot: that frame stays on its parent's shadow stack */
void fnt_vfork_keep_frame(struct fnt_thread *t, uintptr_t slot) FNT_HIDDEN;
/* the real return addresses back in the frames of the parent's shadow
 * stack while it is lent, the trampoline back once the parent is (fentry.c) */
void fnt_shadow_unswap(const struct fnt_thread *saved) FNT_HIDDEN;
void fnt_shadow_reswap(struct fnt_thread *t, uintptr_t sp) FNT_HIDDEN;
void fnt_shadow_vfork_back(struct fnt_thread *t, uintptr_t sp) FNT_HIDDEN;
/* the pthread_atfork steps, for the clone() wrapper (clone.c) */
void fnt_fork_prepare(void) FNT_HIDDEN;
void fnt_fork_parent(void) FNT_HIDDEN;
void fnt_fork_child(void) FNT_HIDDEN;

/* module map */
void fnt_modules_scan(void) FNT_HIDDEN;
int fnt_modules_lock(void) FNT_HIDDEN;      /* 1: taken; 0: not (never waits for its own thread) */
void fnt_modules_unlock(void) FNT_HIDDEN;
void fnt_modules_lock_reset(void) FNT_HIDDEN;
void fnt_modules_fork_child(void) FNT_HIDDEN;   /* record the inherited table in the child's file */

#endif
