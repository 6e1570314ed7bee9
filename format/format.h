/*
 * format.h - the on-disk layout of a fntrace trace, shared by the runtime
 * (writer) and the tool (reader).  doc/format.md is the specification; this
 * header must agree with it.  Everything is little-endian x86-64.
 *
 * A trace is a directory.  Each process image (each pid, and each exec within
 * a pid) writes one file "<pid>-<n>.fnt": a 4 KiB file header followed by
 * fixed-size chunks.  A chunk belongs to one thread (events) or to the process
 * (meta records: modules).  Chunks are independent: each starts a fresh
 * timestamp base and a fresh address cache, so a damaged chunk never spoils
 * the next one.
 */
#ifndef FNT_FORMAT_H
#define FNT_FORMAT_H

#include <stdint.h>
#include <string.h>

#define FNT_FILE_MAGIC      "FNTRACE1"
#define FNT_FORMAT_VERSION  4   /* 2: a NEW event names the slot of its two-way set; 3: SWITCH_OPEN, chunk `below`;
                                   4: fixed-size argument values take their size (FNT_FORMAT_ARGS_SIZED) */
#define FNT_FORMAT_OLDEST   1   /* the oldest version readers still take */
#define FNT_HEADER_SIZE     4096u
#define FNT_CHUNK_MAGIC     0x434e5446u   /* "FTNC" little-endian */
#define FNT_CHUNK_HDR_SIZE  64u
#define FNT_CHUNK_SLACK     64u           /* no event starts in the last 64 bytes: its stores stay inside */
#define FNT_DEFAULT_CHUNK   (256u * 1024u)
#define FNT_MIN_CHUNK       (16u * 1024u)
#define FNT_MAX_CHUNK       (64u * 1024u * 1024u)

#define FNT_STACK_MAX       128u   /* frames in one STACK record */
#define FNT_MARK_MAX        255u   /* bytes of text in one MARK record */

#define FNT_CACHE_BITS      6
#define FNT_CACHE_SLOTS     (1u << FNT_CACHE_BITS)

/* clock sources (file header .clock) */
enum fnt_clock { FNT_CLOCK_TSC = 1, FNT_CLOCK_MONOTONIC = 2 };

/* file header .flags */
#define FNT_FLAG_CALLSITE   0x1u   /* entries are followed by a CALLSITE record */
#define FNT_FLAG_ARGS       0x2u   /* entries/exits may be followed by an ARGS/RETVAL record */
#define FNT_FLAG_RING       0x4u   /* flight recorder: each thread reuses its oldest chunk */
#define FNT_FLAG_FILTERED   0x8u   /* recorded with record-time filters (a FILTERS meta record says which) */
#define FNT_FLAG_SNAPSHOT   0x10u  /* this file is a snapshot copy (fnt_snapshot / signal) */
#define FNT_FLAG_DRAINED    0x20u  /* event chunks went through record's ring (runtime/drain.c) */
#define FNT_FLAG_RESERVED   0x40u  /* the header's chunks_reserved is kept */

/* fnt_file_header.reserved[] slots owned by the flight recorder */
#define FNT_RES_RING_CHUNKS 2      /* chunks per thread in ring mode */
#define FNT_RES_SNAP_TICKS  3      /* when the snapshot was taken (snapshot copies) */
/* slots owned by the runtime's host-safety checks: events lost, by kind, besides lost_* */
#define FNT_RES_LOST_SHADOW 4      /* calls deeper than the shadow stack (-pg -mfentry): 2 per call */
#define FNT_RES_LOST_UNSAFE 5      /* events of contexts the runtime cannot trace safely (no TLS of their own) */
#define FNT_RES_LOST_NOCLOCK 6     /* events dropped in threads left with no clock (seccomp strict mode) */
#define FNT_RES_LOST_STACKS 1      /* events on machine stacks past the registry of them (coroutines) */
#define FNT_CORO_STACKS     4096u  /* that registry: machine stacks parked at once, per process */
#define FNT_RES_LOST_ADDR   7      /* events whose function address the trace cannot hold (0, not user space) */
/* slot owned by fork: when a forked (or vfork, or raw-cloned) child was made, in
 * ticks of the calibration it shares with its parent; 0 for a process that
 * started by exec (its cal0 is its start).  Orders processes by creation. */
#define FNT_RES_FORK_TICKS  0

/* file header .end_flags */
#define FNT_END_EXIT        0x1u   /* exit() or a return from main: the end fields are set */
#define FNT_END_EXIT_CALL   0x2u   /* _exit(), _Exit() or syscall(SYS_exit_group): the end fields and
                                    * exit_status are set, bits 8-11 say which call */
#define FNT_END_STATUS      0x4u   /* with FNT_END_EXIT: exit_status holds the status exit() was given */
#define FNT_END_EXEC        0x8u   /* the image called exec (a wrapper saw it succeed or not return) */
#define FNT_END_HOW_SHIFT   8
#define FNT_END_HOW_EXIT    1u     /* _exit() */
#define FNT_END_HOW_EXIT2   2u     /* _Exit() */
#define FNT_END_HOW_GROUP   3u     /* syscall(SYS_exit_group, ...) */

/* chunk types */
enum fnt_chunk_type { FNT_CHUNK_EVENTS = 1, FNT_CHUNK_META = 2 };

/*
 * The file header (first 4096 bytes).  Written once at start by the process;
 * the counters and the end fields are updated in place through the mapping.
 */
struct fnt_file_header {
	char     magic[8];          /* FNT_FILE_MAGIC */
	uint32_t version;           /* FNT_FORMAT_VERSION */
	uint32_t header_size;       /* FNT_HEADER_SIZE */
	uint32_t chunk_size;        /* bytes per chunk, including its header */
	uint32_t flags;             /* FNT_FLAG_* */
	uint32_t pid, ppid;
	uint32_t exec_seq;          /* n in "<pid>-<n>.fnt" */
	uint32_t clock;             /* enum fnt_clock */
	uint64_t next_chunk;        /* atomic: chunks handed out so far */
	uint64_t next_thread;       /* atomic: thread serials handed out so far */
	/* clock calibration: two (ticks, CLOCK_MONOTONIC ns, CLOCK_REALTIME ns)
	 * samples ~1 ms apart taken at start.  Chunk headers and the end fields
	 * add later samples; the reader fits ticks->ns over the widest span. */
	uint64_t cal0_ticks, cal0_mono, cal0_real;
	uint64_t cal1_ticks, cal1_mono, cal1_real;
	/* set at clean exit (end_flags bit 0); zero if the process died */
	uint64_t end_ticks, end_mono, end_real;
	uint32_t end_flags;         /* FNT_END_*: how the process ended, as far as the runtime saw */
	uint32_t exit_status;       /* the status passed to _exit() & co (FNT_END_EXIT_CALL) */
	/* what could not be recorded (atomic adds, slow paths only) */
	uint64_t lost_reentrant;    /* events dropped inside a signal handler that hit a hook */
	uint64_t lost_nospace;      /* events dropped because no chunk could be had */
	uint64_t lost_meta;         /* meta records dropped (lock timeout, no space) */
	uint64_t reserved[8];
	char     exe[512];          /* readlink /proc/self/exe */
	uint32_t cmdline_len;       /* bytes used in cmdline[] */
	uint32_t cmdline_truncated;
	char     cmdline[2048];     /* argv, NUL-separated */
	/* forked children that could not make a trace file of their own
	 * though the directory was writable to them (Landlock, no descriptor
	 * left, a full disk): each adds 1 here, in its parent's file */
	uint64_t children_nofile;
	/* the inode of the process's pid namespace (/proc/self/ns/pid), 0 if
	 * unknown: a pid names one process only within its namespace, and two
	 * processes of one trace may hold the same pid in two namespaces */
	uint64_t pid_ns;
	/* recording switched off and on for the whole process (fnt_disable()
	 * and fnt_enable(), a trace_off, trace_on or finish trigger, a
	 * --signal action, a start with it off, a forked child of a parent
	 * that had it off): when it was first switched off (ticks; 0: never),
	 * and the last switch, ticks << 1 | 1 when it was to on (0: never).
	 * No event is written while it is off: calls open then may return
	 * unseen, and exits seen after may be of calls entered unseen. */
	uint64_t first_off_ticks;
	uint64_t last_switch;
	/* with FNT_FLAG_RESERVED: 1 + the highest chunk index whose blocks
	 * were reserved (atomic max; 0: none).  next_chunk counts the numbers
	 * taken, and a thread killed by exit_group between taking one and
	 * reserving it leaves a number that no chunk ever had: the file is
	 * cut only if it holds fewer chunks than this */
	uint64_t chunks_reserved;
};

/* every event the process made but could not record, all kinds together */
static inline uint64_t fnt_header_lost(const struct fnt_file_header *h)
{
	return h->lost_reentrant + h->lost_nospace + h->reserved[FNT_RES_LOST_SHADOW] +
	       h->reserved[FNT_RES_LOST_UNSAFE] + h->reserved[FNT_RES_LOST_NOCLOCK] +
	       h->reserved[FNT_RES_LOST_STACKS] + h->reserved[FNT_RES_LOST_ADDR];
}

struct fnt_chunk_header {
	uint32_t magic;             /* FNT_CHUNK_MAGIC */
	uint8_t  type;              /* enum fnt_chunk_type */
	uint8_t  pad[3];
	uint32_t thread;            /* thread serial within the process (events) */
	uint32_t tid;               /* kernel tid (events) */
	uint32_t seq;               /* n-th chunk of this thread / of the meta stream */
	int32_t  depth;             /* call depth when the chunk was started */
	uint64_t base_ticks;        /* event deltas start from here */
	uint64_t mono_ns;           /* CLOCK_MONOTONIC when the chunk was started */
	char     name[16];          /* thread name when the chunk was started */
	uint64_t below;             /* stacks: 1 + calls of `depth` on the stack in use | (1 + calls under it) << 32 */
};

/*
 * Events.  Every event starts with a prefix varint V (below) whose low two
 * bits are the kind:
 *   V = delta_ticks << 8 | payload(6 bits) << 2 | kind(2 bits)
 *   kind 0 ENTRY, payload = cache slot that holds the function address
 *   kind 1 EXIT,  payload = cache slot
 *   kind 2 NEW,   payload bit 0: 0 entry, 1 exit; bit 1: the address goes
 *                 into the other slot of its set (version 2; always 0 in
 *                 version 1); other bits 0.  Followed by a prefix varint
 *                 zigzag(addr - prev_new_addr); the address goes into slot
 *                 fnt_new_slot(addr, payload).
 *   kind 3 EXT,   payload = enum fnt_ext, body follows (per type)
 * The byte 0x00 never starts an event: it marks the end of a chunk's data.
 */
enum fnt_kind { FNT_K_ENTRY = 0, FNT_K_EXIT = 1, FNT_K_NEW = 2, FNT_K_EXT = 3 };

enum fnt_ext {
	FNT_EXT_TIME = 1,        /* body: u64 ticks (absolute); delta field 0 */
	FNT_EXT_CALLSITE = 2,    /* body: varint zigzag(callsite - fn) of the entry just before */
	FNT_EXT_LOST = 3,        /* body: varint count of events dropped on this thread */
	FNT_EXT_THREAD_NAME = 4, /* body: u8 len, len bytes */
	FNT_EXT_THREAD_END = 5,  /* no body: the thread exited */
	FNT_EXT_UNWIND = 6,      /* body: varint n: a longjmp left the n innermost frames */
	FNT_EXT_ARGS = 7,        /* body: varint len, len bytes: argument payload of the entry just before */
	FNT_EXT_RETVAL = 8,      /* body: varint len, len bytes: return-value payload of the exit just before */
	FNT_EXT_MARK = 9,        /* body: u8 len, len bytes of text (fnt_mark) */
	FNT_EXT_STACK = 10,      /* body: varint n (1..FNT_STACK_MAX), then n varints
	                          * zigzag(addr[i] - addr[i-1]) (addr[-1] = 0): return
	                          * addresses, innermost first (fnt_capture_stack) */
	FNT_EXT_SWITCH = 11,     /* body: varint stack: the thread switched to that machine stack (0: its own) */
	FNT_EXT_SWITCH_OPEN = 21,   /* body: varint stack, varint n, varint under: a SWITCH to a stack with n
	                             * calls open on it and `under` under it (version 3; a SWITCH then has
	                             * none of either) */
	FNT_EXT_UNWIND_TO = 14,  /* body: varint addr: an exception's landing pad in the function that starts
	                          * at addr: the frames inside its innermost open frame are gone */
	FNT_EXT_LANDING = 12,    /* body: varint zigzag(ip - addr), right after an UNWIND_TO (delta 0):
	                          * the landing pad's own address, whose inline chain tells which calls
	                          * inlined into that function were not left */
	FNT_EXT_FORK = 13,       /* body: u64 ticks, varint tid: this process was forked at ticks by the
	                          * parent's thread tid, whose open frames it inherited (first record of
	                          * the forking thread's first chunk in the child) */
};

/* meta records in META chunks: u32 header (len:24 | type:8), then len bytes.
 * The header is written last; a zero header ends the chunk's records. */
enum fnt_meta {
	FNT_META_MODULE_LOAD = 1,   /* struct fnt_meta_module, then path (NUL-terminated) */
	FNT_META_MODULE_UNLOAD = 2, /* struct fnt_meta_module (build_id as at load), then path */
	FNT_META_THREAD = 3,        /* struct fnt_meta_thread */
	FNT_META_ARGSPEC = 4,       /* struct fnt_meta_argspec, then the spec text (NUL-terminated) */
	FNT_META_FILTERS = 6,       /* text: the record-time filters, one "KEY VALUE" per line */
	FNT_META_SCOPE = 7,         /* u64 ticks, u64 runtime address, then name (NUL-terminated):
	                               the name of FNT_SCOPE_NAMED's synthetic function address */
	FNT_META_LIBCALL = 8,       /* struct fnt_meta_libcall[]: hooked GOT slots and the functions
	                               they lead to (a library call's event names its slot) */
	FNT_META_UNTRACED = 11,     /* struct fnt_meta_untraced, then the program or directory
	                               (NUL-terminated): a child process that is not traced */
	FNT_META_PATCH = 12,        /* struct fnt_meta_patch, then a name (NUL-terminated): what
	                               -P did to a module built without instrumentation */
	FNT_META_STACK_MOVED = 14,  /* struct fnt_meta_stack_moved: a thread took over a machine
	                               stack that another thread of the process had left */
};

/* FNT_META_STACK_MOVED: thread `to` runs on machine stack `stack` (named as
 * in its SWITCH records) from `ticks` on, which thread `from` left with
 * `frames` calls open on it (a fiber that its scheduler moved to another
 * thread); `from_stack` is its name in `from`'s records (0 when `from` took
 * it for its own stack: a thread whose first call was on a fiber).
 * Written before `to`'s SWITCH record to that stack; those calls' returns
 * are in `to`'s stream. */
struct fnt_meta_stack_moved {
	uint64_t ticks;
	uint64_t stack;
	uint64_t from_stack;
	uint32_t from, to;          /* thread serials */
	uint32_t frames;
	uint32_t pad;
};

/* FNT_META_PATCH.  what == FNT_PATCH_DONE: addr is the module's bias, count
 * the functions patched, the name its path (one per module, after its
 * skipped ones); what == FNT_PATCH_NO_DISASM: the same, nothing patched,
 * count functions selected; what == FNT_PATCH_SHORT_PAD: the same, count
 * the selected functions of a -fpatchable-function-entry module whose pad
 * has fewer than 5 bytes at the entry; FNT_PATCH_PADS: the same, count the
 * selected functions whose pad takes the call; else a selected function left alone: addr is
 * its runtime address, what the reason, the name its symbol */
struct fnt_meta_patch {
	uint64_t addr;
	uint32_t what;
	uint32_t count;
};
enum fnt_patch_reason {
	FNT_PATCH_DONE = 0,
	FNT_PATCH_TOO_SHORT = 1,      /* shorter than the 5-byte jump, or its first bytes end it */
	FNT_PATCH_BRANCH_INTO = 2,    /* a branch lands inside the first bytes */
	FNT_PATCH_LOOP_TO_START = 3,  /* it jumps back to its own first instruction */
	FNT_PATCH_CALL = 4,           /* an indirect call among the first bytes */
	FNT_PATCH_CANNOT_MOVE = 5,    /* an instruction that cannot move (loop, jrcxz, out of reach) */
	FNT_PATCH_NOT_TEXT = 6,       /* not in .text (.init, .plt, .fini), or _start */
	FNT_PATCH_NO_SIZE = 7,        /* a symbol with no size */
	FNT_PATCH_UNDECODABLE = 8,    /* the disassembler cannot decode it */
	FNT_PATCH_NO_ROOM = 9,        /* no memory for its trampoline within reach */
	FNT_PATCH_NO_DISASM = 10,     /* capstone (libcapstone4) could not be loaded */
	FNT_PATCH_FRAGMENT = 11,      /* a part of another function (gcc's foo.cold), entered by a jump */
	FNT_PATCH_SHORT_PAD = 12,     /* per module: count functions whose patchable entry has < 5 bytes */
	FNT_PATCH_PADS = 13,          /* per module: count functions whose patchable entry was selected */
	FNT_PATCH_N_REASONS
};

/* FNT_META_LIBCALL: one per hooked GOT slot, as many as the record holds.
 * The slot is the library call's function address in its events; target is
 * the function it led to when hooked (what the dynamic linker bound: an
 * IFUNC's choice, an alias's definition), both runtime addresses. */
struct fnt_meta_libcall {
	uint64_t target;
	uint64_t slot;
};

struct fnt_meta_module {
	uint64_t ticks;         /* when it was seen loaded / unloaded */
	uint64_t bias;          /* dlpi_addr: runtime address = bias + file vaddr */
	uint64_t lo, hi;        /* runtime address range of its PT_LOAD segments */
	uint8_t  build_id_len;
	uint8_t  build_id[32];
	uint8_t  pad[7];
};

struct fnt_meta_thread {
	uint64_t ticks;         /* first event of the thread */
	uint32_t thread;        /* serial */
	uint32_t tid;
	char     name[16];
};

/* FNT_META_UNTRACED: written by the parent when it starts a process that
 * cannot be traced */
struct fnt_meta_untraced {
	uint64_t ticks;
	uint32_t pid;           /* the child's pid; 0 for an exec (the same pid) */
	uint32_t reason;        /* FNT_UNTRACED_* */
};
#define FNT_UNTRACED_SETID   1   /* a setuid/setgid program: secure execution ignores LD_PRELOAD */
#define FNT_UNTRACED_CAPS    2   /* a program with file capabilities: the same */
#define FNT_UNTRACED_NO_FILE 3   /* a forked child that cannot create its trace file in the directory */
#define FNT_UNTRACED_STATIC  4   /* a statically linked program: no loader reads LD_PRELOAD */
#define FNT_UNTRACED_ARCH    5   /* a program for another machine (32-bit): libfntrace.so cannot be loaded */
#define FNT_UNTRACED_SANDBOX 6   /* a forked child whose seccomp filter forbids what making its trace file takes */
#define FNT_UNTRACED_ELSEWHERE 7 /* a forked child where the trace directory's path names another directory (mount namespace, chroot) */

/* the argument spec (format/argspec.h text) captured for the function at addr */
struct fnt_meta_argspec {
	uint64_t addr;          /* runtime address of the function (its first byte) */
};

_Static_assert(sizeof(struct fnt_file_header) <= FNT_HEADER_SIZE, "file header fits its block");
_Static_assert(__builtin_offsetof(struct fnt_file_header, first_off_ticks) == 2808 &&
	       __builtin_offsetof(struct fnt_file_header, last_switch) == 2816 &&
	       __builtin_offsetof(struct fnt_file_header, chunks_reserved) == 2824, "doc/format.md's offsets");
_Static_assert(sizeof(struct fnt_chunk_header) == FNT_CHUNK_HDR_SIZE, "chunk header is 64 bytes");
_Static_assert(sizeof(struct fnt_meta_module) == 72, "doc/format.md says 72");
_Static_assert(sizeof(struct fnt_meta_thread) == 32, "doc/format.md says 32");
_Static_assert(sizeof(struct fnt_meta_stack_moved) == 40, "doc/format.md says 40");

/* ---- encoding helpers, used identically by writer and reader ---- */

/* The address cache: 64 slots, 32 sets of two (slots 2s and 2s + 1).
 * An address's home slot is fnt_slot(addr); the other slot of its set is
 * fnt_slot(addr) ^ 1.  A NEW event puts its address into one of the two,
 * named by payload bit 1 (the writer picks, the reader follows): two
 * functions whose home slots are one set's no longer evict each other at
 * every call.  Version 1 had one slot per address (bit 1 always 0). */
static inline unsigned fnt_slot(uint64_t addr)
{
	return (unsigned)((addr * 0x9E3779B97F4A7C15ull) >> (64 - FNT_CACHE_BITS));
}

static inline unsigned fnt_new_slot(uint64_t addr, unsigned payload)
{
	return fnt_slot(addr) ^ ((payload >> 1) & 1);
}

static inline uint64_t fnt_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t fnt_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/*
 * Prefix varint: values below 2^56 take 1..8 bytes.  The number of trailing
 * zero bits of the first byte, plus one, is the length; the value sits above
 * them.  Encoding is a shift and an or, written with one unaligned 8-byte
 * store (the bytes past the length are zero), so an event is never half
 * written: a process killed between two instructions leaves either the whole
 * event or none of it.
 */
#define FNT_VARINT_MAX ((1ull << 56) - 1)

static inline unsigned fnt_varint_len(uint64_t v)
{
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);
	return (bits + 6) / 7;
}

static inline uint64_t fnt_varint_pack(uint64_t v, unsigned len)
{
	return (v << len) | (1ull << (len - 1));
}

/* decode at p (at least 8 readable bytes); returns length, 0 if p[0]==0 */
static inline unsigned fnt_varint_get(const uint8_t *p, uint64_t *out)
{
	uint64_t x;
	unsigned len;
	if (!p[0])
		return 0;
	len = (unsigned)__builtin_ctz(p[0]) + 1;
	memcpy(&x, p, 8);
	if (len < 8)
		x &= (1ull << (8 * len)) - 1;
	*out = x >> len;
	return len;
}

/* The length of the record at p (end: where the chunk's bytes end, at
 * least 8 bytes past any record the writer puts at p), and in *is_event
 * whether it is a function event (an entry or exit); 0 at the end of the
 * data (a zero byte) or at a record it cannot read. */
static inline size_t fnt_record_len(const uint8_t *p, const uint8_t *end, int *is_event)
{
	const uint8_t *q = p;
	uint64_t v, x;
	unsigned len, varints = 0;

	*is_event = 0;
	if (q + 8 > end || !(len = fnt_varint_get(q, &v)))
		return 0;
	q += len;
	if ((v & 3) != FNT_K_EXT) {
		*is_event = 1;
		varints = (v & 3) == FNT_K_NEW;         /* its address */
	} else {
		switch ((v >> 2) & 63) {
		case FNT_EXT_TIME:
			q += 8;
			break;
		case FNT_EXT_THREAD_NAME:
		case FNT_EXT_MARK:
			if (q >= end)
				return 0;
			q += 1 + *q;
			break;
		case FNT_EXT_THREAD_END:
			break;
		case FNT_EXT_FORK:
			q += 8;
			varints = 1;
			break;
		case FNT_EXT_SWITCH_OPEN:
			varints = 3;
			break;
		case FNT_EXT_CALLSITE:
		case FNT_EXT_LOST:
		case FNT_EXT_UNWIND:
		case FNT_EXT_SWITCH:
		case FNT_EXT_UNWIND_TO:
		case FNT_EXT_LANDING:
			varints = 1;
			break;
		case FNT_EXT_ARGS:
		case FNT_EXT_RETVAL:
			if (q + 8 > end || !(len = fnt_varint_get(q, &x)) || x > (uint64_t)(end - q))
				return 0;
			q += len + x;
			break;
		case FNT_EXT_STACK:
			if (q + 8 > end || !(len = fnt_varint_get(q, &x)) || x > FNT_STACK_MAX)
				return 0;
			q += len;
			varints = (unsigned)x;
			break;
		default:
			return 0;
		}
	}
	for (; varints; varints--) {
		if (q + 8 > end || !(len = fnt_varint_get(q, &x)))
			return 0;
		q += len;
	}
	return q <= end ? (size_t)(q - p) : 0;
}

/* The function events (entries and exits) in an event chunk of `size`
 * bytes: what is lost with a chunk that cannot be written (RLIMIT_FSIZE,
 * a failed write).  The count stops at the end of the data (a zero byte)
 * or at a record it cannot read.  LOST records are not counted: their
 * events are in the file header's counters already. */
static inline uint64_t fnt_chunk_events(const uint8_t *chunk, size_t size)
{
	const uint8_t *p = chunk + FNT_CHUNK_HDR_SIZE, *end = chunk + size;
	uint64_t n = 0;
	size_t len;
	int ev;

	while ((len = fnt_record_len(p, end, &ev))) {
		p += len;
		n += (uint64_t)ev;
	}
	return n;
}

#endif
