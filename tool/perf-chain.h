/*
 * perf-chain.h - the text of `perf script` (its default output with
 * callchains) and the rewrite of one sample's callchain, for
 * `fntrace perf-script`.  Pure: no trace, no symbols; cmd-perf-script.c
 * finds the calls that were open at a sample and hands them here.
 *
 * A sample is a header line "comm tid[/...] [cpu] secs.frac: period event:"
 * (the pid/tid and cpu columns as perf's -F options print them) followed by
 * one line per frame, "\t<hex addr> sym+0xoff (dso)", innermost first, and
 * a blank line.  Under -pg -mfentry, -P and library calls, the return
 * address of every traced call is swapped for fnt_return_trampoline (whose
 * symbol perf shows as fnt_traced_return+0x1, or +0x0 once an unwinder
 * subtracts one from a return address): those frames are the ones put
 * back, each with the frame of the caller it stands for.
 */
#ifndef FNT_PERF_CHAIN_H
#define FNT_PERF_CHAIN_H

#include <stddef.h>
#include <stdint.h>

struct pc_frame {                   /* one line below a sample's header */
	const char *line;           /* the whole line, without its newline (points into the input) */
	size_t len;
	int parsed;                 /* an "addr sym (dso)" line; 0: kept as it is */
	uint64_t addr;
	const char *sym;            /* without its "+0xoff" */
	size_t sym_len;
	uint64_t off;
	int has_off;
	const char *dso;            /* between the last parentheses, or NULL */
	size_t dso_len;
	int tramp;                  /* a swapped return address (fnt_traced_return+0x1 ...) */
	int untraced;               /* (set by the caller) in a module of which the trace has no
	                               function, and not fntrace's: code the program ran untraced */
};

struct pc_sample {
	size_t line;                /* its header line's index in the input */
	uint32_t tid;
	uint64_t ns;                /* its time stamp, in ns */
	struct pc_frame *frames;
	size_t n_frames;
	/* set by pc_scan */
	size_t n_tramp;             /* how many of the frames are swapped return addresses */
	size_t first, last;         /* the first and last of them */
	size_t head;                /* the frame line just inside the first (n_frames: none) */
	int trailing;               /* frames follow the last */
	/* set by the caller: the head is where the sample was taken, not a frame
	 * unwound up to the first swapped one (perf-inject's DWARF samples) */
	int head_is_pc;
};

/* Whether a frame named sym (+off, when has_off) is a swapped return
 * address: fnt_traced_return+0x1 (or +0x0 once an unwinder subtracted one),
 * fnt_return_trampoline+0x0. */
int pc_tramp_sym(const char *sym, size_t len, uint64_t off, int has_off);
/* A header line: its tid and time (ns).  0, or -1 when it is not one. */
int pc_parse_header(const char *line, size_t len, uint32_t *tid, uint64_t *ns);
/* A frame line into f (f->parsed 0 when it is not "addr sym (dso)"). */
void pc_parse_frame(const char *line, size_t len, struct pc_frame *f);
/* Once s's frames are parsed: where its swapped frames are. */
void pc_scan(struct pc_sample *s);

/* An open call at the sample's time, for pc_rewrite; calls[0] is the
 * outermost (the order of the thread's stack, so that a caller keeps the
 * array as the stack grows). */
struct pc_call {
	const char *name;           /* its function's name, or NULL when not known */
	const char *dso;            /* its module's path */
	uint64_t start, size;       /* its function's file vaddr and size (0: not known) */
	/* the frame its return address stands for: where it was called from */
	const char *caller;         /* NULL: not known */
	const char *caller_dso;
	uint64_t caller_addr;       /* file vaddr shown */
	uint64_t caller_off;        /* from the caller's start */
	/* runtime addresses, for rewriting perf.data (perf-inject) */
	uint64_t addr;              /* its function's entry */
	uint64_t ret;               /* its real return address (ret_exact), or an address in
	                               its caller (the caller's entry); 0: not known */
	int ret_exact;
	/* a library call (size 0: its GOT slot): the function the slot led to,
	 * whatever its name (an IFUNC's choice, an alias); size 0: not known */
	const char *target_dso;
	uint64_t target_start, target_size;
	uint32_t file;              /* its module's index in the trace's files + 1; 0: not known
	                               (perf-inject reads the code of that very build) */
};

/* The sample's frames with each swapped return address replaced by the
 * frame of its call's caller, as frame lines ending in newlines, into a
 * malloc'd *out.  A chain that ends at a swapped return address (an
 * unwinder that could not go on there, as perf's DWARF unwinding) gets the
 * callers of the remaining calls appended.  The calls must fit the chain:
 * the frame just inside the first swapped one lies in the innermost call's
 * function (same module; its name, or an address within it), or a deeper
 * one's when a walk by frame pointers skipped frames, and there are no more
 * swapped frames than calls.
 * Returns 1 with *out set, 0 when they do not fit, -1 when the sample has
 * no swapped return address.  It is pc_fit then pc_render: */
int pc_rewrite(const struct pc_sample *s, const struct pc_call *calls, size_t n, char **out, size_t *out_len);
/* Whether the calls fit (1, 0, -1 as pc_rewrite), cheaply (no text made);
 * *skipped_to: how deep, from the innermost call, the frame inside the first
 * swapped one lies (0 unless the walk skipped frames), for pc_render. */
int pc_fit(const struct pc_sample *s, const struct pc_call *calls, size_t n, size_t *skipped_to);
/* The call (counted from the innermost, calls[n - 1 - t]) whose return
 * address the first swapped frame is; the k-th swapped frame after it is
 * call t + k's (pc_render puts back the calls from skipped_to to t before
 * it, which a walk by frame pointers skipped). */
size_t pc_first_slot(const struct pc_sample *s, size_t n);
/* The rewritten frames of calls that fit (0), or -1 out of memory. */
int pc_render(const struct pc_sample *s, const struct pc_call *calls, size_t n, size_t skipped_to, char **out,
	      size_t *out_len);

/* Matching a sample to its thread's states: each state of the thread's
 * stack (calls[0..n), outermost first), which held from since to upto (ns,
 * the sample's clock), is tried on the samples near it.  The state at the
 * sample's very time stands if it fits; otherwise every state that fits
 * must be the same one (by key), or the sample is ambiguous (conflict) and
 * stays as it was.  Frames are made only for the state kept. */
struct pc_match {
	char *text;                 /* the rewritten frames (malloc'd: pc_render's text, or what
	                               the render function given made), or NULL */
	size_t len;
	uint64_t key;               /* which state (and depth inside it) they came from */
	uint64_t dist;              /* ns from the sample to that state */
	int conflict;               /* another state as near fitted and differs */
};
/* key: what calls[0..n) are (pc_key over each call's function and call
 * site, outermost first).  0, or -1 out of memory. */
int pc_match_state(struct pc_match *m, const struct pc_sample *s, const struct pc_call *calls, size_t n,
		   uint64_t key, uint64_t since, uint64_t upto);
/* The same with another render function in pc_render's place (perf-inject's
 * return addresses instead of text). */
typedef int (*pc_render_fn)(const struct pc_sample *s, const struct pc_call *calls, size_t n, size_t skipped_to,
			    char **out, size_t *out_len);
int pc_match_state_by(struct pc_match *m, pc_render_fn render, const struct pc_sample *s,
		      const struct pc_call *calls, size_t n, uint64_t key, uint64_t since, uint64_t upto);
uint64_t pc_key(uint64_t h, uint64_t v);

#endif
