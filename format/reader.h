/*
 * reader.h - the one trace reader.  It opens a trace directory, checks every
 * file, replays the module map, and walks the events of every thread,
 * calling back for each one.  replay, report, info and every export are
 * callback sets over trace_walk(); none of them parses the format.
 *
 * Function identity: an address is turned into (module file, file vaddr)
 * against the modules mapped in that process at that moment, and each
 * distinct pair gets a small integer id (struct trace_func).  Names are the
 * tool's business (symbols/); the reader never looks at DWARF.
 */
#ifndef FNT_READER_H
#define FNT_READER_H

#include <stddef.h>
#include <stdint.h>
#include "format/format.h"

#define TRACE_NO_FILE UINT32_MAX

struct trace_file_ref {             /* a distinct module file: path + build-id */
	char *path;
	uint8_t build_id[32];
	uint8_t build_id_len;
	int sym;                    /* free for the tool (symbols handle), -1 at open */
};

struct trace_module {               /* one mapping of a module file in one process */
	uint32_t file;              /* index in trace->files */
	uint64_t bias, lo, hi;
	uint64_t load_ticks, unload_ticks;   /* unload_ticks UINT64_MAX: never unloaded */
	uint64_t load_ns, unload_ns;         /* trace-relative */
	int at_start;               /* present when the process started */
};

struct trace_process;

struct scope_pending {              /* a SCOPE record until the module map is complete */
	size_t scope;
	uint64_t ticks;
};

struct trace_thread {
	struct trace_process *proc;
	uint32_t serial, tid;
	char name[17];              /* at open: the first one known; a walk renames it as it goes */
	char open_name[17];         /* the name at open (trace_rewind) */
	uint32_t *chunks;           /* chunk indices in this process's file, by seq */
	size_t n_chunks, cap_chunks;
	int32_t start_depth;        /* call depth at the first chunk (fork child, ring) */
	uint64_t start_below;       /* its first chunk's `below` (format.h), or 0 */
	uint32_t first_seq;         /* seq of its first chunk present (> 0: ring history overwritten) */
	uint64_t history_ns;        /* ring: where its history starts (trace-relative), if first_seq > 0 */
	uint64_t history_ticks;
	/* filled by trace_walk */
	uint64_t events, lost;
	uint64_t first_ns, last_ns;
	int ended;                  /* its THREAD_END was seen */
	int selected;               /* walk it (trace_select_tids) */
	/* a forked child's forking thread (FNT_EXT_FORK, its first record):
	 * the parent's thread and when; 0 when not known */
	uint32_t fork_tid;
	uint64_t fork_ticks;
	struct trace_frame_ref *inherited;   /* trace_inherited's answer, once asked */
	size_t n_inherited;
	int inherited_done;
	int32_t inherited_ghosts;   /* of start_depth, calls the parent's runtime still counted open at the
	                               fork that a reader closes (format/ghosts.h); with trace_inherited */
	/* fibers (FNT_META_STACK_MOVED): the machine stacks other threads
	 * took over from this one, and the ones it took over, by time */
	struct trace_stack_move **moves_out, **moves_in;
	size_t n_moves_out, n_moves_in;
	void *view_data;            /* per-thread state of the tool's call layer */
	void *view_aux;             /* per-thread state of the view on top of it */
	/* the chunk its walk is decoding; the one it left while decoding the
	 * batch being handed out (dropped at the next batch); a chunk left
	 * earlier that a view read again (trace_payload_done) */
	const uint8_t *live_lo, *live_hi, *left_lo, *left_hi, *drop_lo, *drop_hi;
};

struct trace_argspec {              /* ARGSPEC meta record: the items captured for a function */
	uint64_t addr;              /* runtime address of the function */
	char *text;                 /* format/argspec.h item list; equal texts are one (argspec_share) */
	int shared;                 /* text is an earlier entry's: not freed with this one */
};

struct trace_process {
	struct trace *trace;
	char *file;                 /* path of the .fnt */
	const uint8_t *map;
	size_t size;
	int fd;                     /* open while the chunk headers are scanned, then -1 */
	struct fnt_file_header hdr;
	uint64_t n_chunks;          /* chunks (complete or not) present in the file */
	/* ticks -> trace-relative ns: ns = (ticks - tick0) * scale + off */
	uint64_t tick0;
	double scale;
	int64_t mult;               /* scale in 32.32 fixed point */
	int64_t off;
	uint64_t start_ns;          /* when it was made (trace-relative): its fork, else its first clock sample */
	int clock_fit;              /* scale is a fit of its clock samples (not 1.0 for want of a usable one) */
	struct trace_module *modules;
	size_t n_modules;
	size_t cap_modules;
	struct module_index *mindex;      /* modules by address and time (reader-modules.c), after open */
	uint32_t *open_bucket;      /* modules not unloaded yet, by (path, bias, lo) hash (while opening) */
	uint32_t *open_next;        /* their chains, newest first: index + 1, 0 end */
	size_t n_open_bucket;
	struct trace_thread *threads;
	size_t n_threads;
	size_t cap_threads;
	uint32_t *thread_index;     /* by serial: index in threads + 1, 0 none (while opening) */
	size_t n_thread_index;
	char **argv;
	int argc;
	uint64_t damaged_bytes;     /* bytes of event data skipped as corrupt or torn */
	uint64_t damaged_chunks;
	uint64_t missing_chunks;    /* holes in a thread's chunk sequence */
	uint64_t unwritten_chunks;  /* handed out, all zeros in the file (not in a flight recorder) */
	int copy_cut;               /* record, which copied its chunks into the file, did not finish: a
				     * copy may end mid-record at a page boundary (reader-decode.c) */
	uint64_t sealed_end;        /* 1 + the highest chunk with its magic (while opening) */
	int exec_replaced;          /* the next image of the same pid started after this one's end: exec */
	int after_exec;             /* the image that replaced an earlier one of the same pid */
	struct scope_pending *scope_ticks;
	size_t n_scope_ticks;
	char *filters;              /* the FILTERS meta record (record-time filters), or NULL */
	struct trace_untraced *untraced;  /* UNTRACED meta records: children not traced */
	size_t n_untraced;
	struct trace_patch *patches;      /* PATCH meta records: what -P did, in record order */
	size_t n_patches;
	uint64_t max_ticks;         /* latest clock sample seen (for the clock fit) */
	uint64_t max_mono;
	struct trace_argspec *argspecs;   /* sorted by addr after open */
	size_t n_argspecs;
	uint32_t *argspec_hash;     /* by addr: 1 + index of its first entry, 0 empty (after open) */
	unsigned argspec_shift;     /* 64 - log2 of the hash's size */
	struct fnt_meta_libcall *libcalls; /* LIBCALL meta records: sorted by slot after open,
	                                      a reused slot's records in record order */
	size_t n_libcalls;
	struct trace_stack_move *moves;   /* STACK_MOVED meta records, by time */
	size_t n_moves;
	/* recording switched off (the header's first_off_ticks and
	 * last_switch): when first, and when last if it stayed off (UINT64_MAX:
	 * never; it did not) */
	uint64_t first_off_ns, last_off_ns;
	uint64_t last_switch_ns;          /* the last switch, either way (UINT64_MAX: none) */
};

/* FNT_META_STACK_MOVED: thread `to` took over machine stack `stack` (its
 * name in to's TRACE_SWITCH events) at ns, which `from` had left with `frames`
 * calls open on it: those calls were entered on `from`, their returns are
 * on `to` (a fiber moved between threads by its scheduler) */
struct trace_stack_move {
	uint64_t ns;                /* trace-relative */
	uint64_t ticks;
	uint64_t stack;
	uint64_t from_stack;        /* its name in `from`'s TRACE_SWITCH events */
	struct trace_thread *from, *to;
	uint32_t from_serial, to_serial;
	uint32_t frames;
};

struct trace_patch {                /* FNT_META_PATCH */
	uint64_t addr;              /* FNT_PATCH_DONE/NO_DISASM: the module's bias; else the function */
	uint32_t what;              /* FNT_PATCH_* */
	uint32_t count;             /* FNT_PATCH_DONE: functions patched */
	char *name;                 /* the module's path, or the function's symbol */
};

struct trace_untraced {             /* FNT_META_UNTRACED */
	uint32_t pid;               /* 0: an exec of this process */
	uint32_t reason;            /* FNT_UNTRACED_* */
	char *path;                 /* the program (exec, spawn) or the trace directory (fork) */
};

struct trace_scope {                /* FNT_SCOPE_NAMED: a synthetic function and its name */
	uint32_t file;              /* module file of the address, or TRACE_NO_FILE */
	uint64_t vaddr;
	char *name;
};

struct trace_func {
	uint32_t file;              /* TRACE_NO_FILE: address outside every known module */
	uint64_t vaddr;             /* file vaddr, or the absolute address */
	uint64_t count;             /* free for views */
};

struct trace {
	char *dir;
	int borrowed;               /* opened on a caller's buffer: nothing to unmap or release */
	struct trace_process *procs;
	size_t n_procs;
	struct trace_file_ref *files;
	size_t n_files;
	uint32_t *file_hash;        /* open addressing: file index + 1, 0 empty */
	size_t file_hash_size;
	struct trace_func *funcs;
	size_t n_funcs, cap_funcs;
	uint32_t *func_hash;        /* open addressing: func id + 1, 0 empty */
	size_t func_hash_size;
	uint64_t hash_seed;         /* random, for every hash table of the reader */
	uint64_t t0_mono, t0_real;  /* trace-relative ns 0 on both clocks */
	uint64_t end_ns;            /* latest event seen by the last walk */
	volatile uint64_t chunks_walked;   /* event chunks the current walk has begun (progress) */
	struct trace_scope *scopes; /* named scopes of every process */
	size_t n_scopes;
	uint32_t *scope_hash;       /* by (file, vaddr): scope index + 1, 0 empty (the first of equal keys) */
	size_t scope_hash_size;
	char **warnings;            /* one-line notes gathered while opening */
	size_t n_warnings;
	/* from the session file written by `fntrace record` (may be absent) */
	int has_session;            /* the directory has one, readable or not */
	uint64_t unwritten_lost;    /* chunks never written, record gone (reader-open.c, unwritten_warn) */
	size_t tail_unknown;        /* processes whose last events may be missing, record gone (the same) */
	char *session_command;
	char *session_options;      /* record's own options ("-F main -A f@arg1"), or NULL */
	int session_has_status;
	int session_status;         /* raw wait status */
	uint32_t session_pid;       /* the process record started (pid in record's namespace), 0 unknown */
	uint64_t session_start_real;
	uint64_t session_mono, session_boot;   /* CLOCK_MONOTONIC and CLOCK_BOOTTIME read together, or 0 */
};

enum trace_event_kind {
	TRACE_ENTRY = 1,
	TRACE_EXIT,
	TRACE_LOST,           /* count events could not be recorded here */
	TRACE_THREAD_END,
	TRACE_STREAM_END,
	TRACE_UNWIND,         /* a longjmp left the `count` innermost frames */     /* no more events for this thread in the trace (ns = its last event) */
	TRACE_MARK,           /* fnt_mark(): text, text_len */
	TRACE_STACK,          /* fnt_capture_stack(): count frames in stack_* */
	TRACE_SWITCH,         /* coroutines: the thread now runs on machine stack `count` (0: its own);
	                       * addr: 1 + the calls open on it, callsite_vaddr: 1 + those under it,
	                       * when the file says (version 3), else 0 */
	TRACE_UNWIND_TO,      /* an exception landed in func (runtime address addr): the frames inside
	                       * its innermost open frame are gone (none open: nothing is) */
	TRACE_GAP,            /* count chunks of this thread are missing from the file here (a disk
	                       * that filled, a chunk damaged or never copied): the calls open
	                       * before end in the gap (ns: the last event before it), and the
	                       * calls the runtime counted open at the next chunk's start,
	                       * (int64_t)addr of them, were entered in it; callsite_vaddr: that
	                       * chunk's `below` (format.h: how many of them are on the
	                       * stack its first record, a SWITCH, names), or 0 */
};

/* The body of a MARK or STACK event, owned by the reader.  Such an event
 * ends its batch, so the body stays valid while the batch is handed out
 * (and, through trace_walk, until the callback returns). */
struct trace_body {
	const char *text;           /* MARK: the text, NUL-terminated */
	size_t text_len;
	const uint64_t *stack;      /* STACK: `count` runtime return addresses, innermost first */
	const uint32_t *stack_file; /* their module files (TRACE_NO_FILE: none) */
	const uint64_t *stack_vaddr;/* their file vaddrs (the address itself without a module) */
};

struct trace_event {          /* 64 bytes, the fields of every ENTRY/EXIT first */
	uint8_t kind;
	uint32_t func;              /* ENTRY/EXIT */
	uint64_t ns;                /* trace-relative */
	uint64_t addr;              /* runtime address (ENTRY/EXIT) */
	struct trace_thread *thread;
	uint64_t callsite;          /* runtime return address of the call (ENTRY with --callsite) or 0 */
	union {
		uint64_t callsite_vaddr;        /* file vaddr of the call site (GAP: see TRACE_GAP) */
		const struct trace_body *body;  /* MARK, STACK (see struct trace_body) */
	};
	union {
		uint64_t count;     /* LOST, UNWIND, STACK */
		/* ENTRY: the ARGS payload, EXIT: the RETVAL payload that follow
		 * it, or NULL (points into the mapped trace: valid until
		 * trace_close) */
		const uint8_t *payload;
	};
	uint32_t callsite_file;     /* module file of the call site, or TRACE_NO_FILE */
	/* ENTRY: length of the ARGS payload, EXIT: of the RETVAL payload (below) */
	uint32_t payload_len;
};

/* return non-zero from a callback to stop the walk (trace_walk returns it) */
typedef int (*trace_event_fn)(void *ctx, const struct trace_event *ev);

/* Batches: n >= 1 consecutive events of one thread (ev[0].thread), in
 * walk order.  The reader decodes up to TRACE_BATCH events of a thread
 * ahead of the views, so while a batch is handed out the thread's fields
 * filled by the walk (events, last_ns, ended, name) may already count
 * events after it: views take times from the events (ev->ns).  trace_walk
 * sets last_ns to each event's time as it hands it out. */
#define TRACE_BATCH 256
typedef int (*trace_batch_fn)(void *ctx, const struct trace_event *ev, size_t n);

/* Open a trace directory.  Returns 0, or -1 with a one-line message in err. */
int trace_open(struct trace **out, const char *dir, char *err, size_t errlen);
/* Open one .fnt image from memory (fuzzing, tests). */
int trace_open_buffer(struct trace **out, const uint8_t *buf, size_t len, char *err, size_t errlen);
void trace_close(struct trace *t);

/* Walk the events.  by_time: all threads of all processes merged in time
 * order; otherwise thread after thread (faster).  Damage found on the way is
 * counted in the process (damaged_bytes ...), never fatal. */
int trace_walk(struct trace *t, int by_time, trace_event_fn fn, void *ctx);
/* The same walk, handing out events in batches (the fast way: no call per
 * event).  The order of events is exactly trace_walk's. */
int trace_walk_batch(struct trace *t, int by_time, trace_batch_fn fn, void *ctx);

/* Put back what a walk filled in (each thread's name, events, lost,
 * times, ended; the damage counts) as the trace said at open: for a walk
 * made before the view's own, whose view reads them before walking (the
 * export's event count, then perfetto's thread names). */
void trace_rewind(struct trace *t);

/* Restrict walks to threads whose tid is in the list; returns the number
 * of threads matched. */
size_t trace_select_tids(struct trace *t, const uint32_t *tids, size_t n);

uint64_t trace_total_events(const struct trace *t);
/* whether two processes' pids are of one pid namespace, as far as their
 * files tell (a file that does not name its namespace matches any) */
static inline int trace_same_pid_ns(const struct trace_process *a, const struct trace_process *b)
{
	return !a->hdr.pid_ns || !b->hdr.pid_ns || a->hdr.pid_ns == b->hdr.pid_ns;
}
int trace_has_function_events(const struct trace *t);   /* after a walk */
/* Whether recording was switched off in process p (its file header) at
 * some time at or before ns: an exit then may be of a call entered unseen;
 * and whether it was off at the end, since *since_ns: the returns of the
 * calls open then were not seen */
int trace_recording_was_off(const struct trace_process *p, uint64_t ns);
int trace_recording_off_at_end(const struct trace_process *p, uint64_t *since_ns);
/* whether recording was switched (off or on) at or after ns */
int trace_recording_switched_since(const struct trace_process *p, uint64_t ns);
uint64_t trace_ns_to_real(const struct trace *t, uint64_t ns);
/* the name of a named scope (FNT_SCOPE_NAMED) at (file, vaddr), or NULL */
const char *trace_scope_name(const struct trace *t, uint32_t file, uint64_t vaddr);
/* The frames a forked child's thread inherited from its parent's forking
 * thread (open there when it forked), outermost first, found by decoding
 * the parent's events up to the fork (and its own parent's, for a child of
 * a child).  Valid once the thread's first events were handed out by a
 * walk (the FORK record comes first); the array is owned by the trace.
 * Returns how many (at most th->start_depth, the innermost ones); 0 when
 * the trace does not say (no FORK record, the parent's file missing). */
struct trace_frame_ref {
	uint32_t func;
	uint64_t addr;              /* runtime address */
};
size_t trace_inherited(struct trace *t, struct trace_thread *th, const struct trace_frame_ref **out);
/* the module of process p that held runtime address addr at trace time ns, or NULL */
const struct trace_module *trace_module_at(const struct trace_process *p, uint64_t addr, uint64_t ns);
/* the spec text recorded for the function at runtime address addr, or NULL */
const char *trace_argspec(const struct trace_process *p, uint64_t addr);
/* A view is done with an event's payload (a call's arguments, read at its
 * exit): when it lies in a chunk the walk has already left, whose pages
 * were dropped and came back for this read, they are dropped again, so
 * that a view reading entries' values at the exits keeps memory bounded:
 * when the walk leaves its current chunk, or at once when another left
 * chunk is read (one such chunk per thread at most; a syscall per read
 * was 8 % of a replay). */
void trace_payload_done(struct trace_thread *th, const uint8_t *payload, size_t len);
/* the function a library call's GOT slot (runtime address) led to, as last
 * recorded (FNT_META_LIBCALL), or 0 when the trace does not say */
uint64_t trace_libcall_target(const struct trace_process *p, uint64_t slot);

#endif
