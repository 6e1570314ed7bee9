/*
 * tui.h - what the parts of `fntrace tui` share.  The models are built by
 * streaming the trace once (tui-model.c: the path-merged call tree, the
 * per-function profile, each thread's count of replay lines); the replay of
 * one thread is never held whole: tui-replay.c walks that thread again and
 * keeps a window of its lines, or stops at the first line a search wants.
 */
#ifndef FNT_TUI_H
#define FNT_TUI_H

#include <stdint.h>
#include "tool/calltree.h"

struct tui_fstat {                /* one function's profile, as report's */
	uint64_t calls, timed, total, self, min, max, sum;
};

struct tui_thread {
	struct trace_thread *th;
	uint64_t lines;           /* replay lines of this thread */
	uint8_t *funcs;           /* bitset: functions called on this thread */
	size_t n_funcs;           /* bytes in funcs */
};

struct tui_model {
	struct view *v;
	struct calltree tree;
	struct tui_fstat *fs;     /* by func id */
	size_t n_fs;
	struct tui_thread *threads;
	size_t n_threads;
	uint64_t calls;
};

/* read the trace once into m (v is open); returns calls_walk's result */
int tui_model_build(struct tui_model *m, struct view *v);
void tui_model_release(struct tui_model *m);
int tui_thread_has(const struct tui_thread *t, uint32_t func);

enum tui_line_kind { LINE_LEAF, LINE_OPEN, LINE_CLOSE, LINE_NOTE };

struct tui_line {                 /* one replay line, as `fntrace replay` prints it */
	uint32_t func;
	int32_t depth;
	uint8_t kind;             /* enum tui_line_kind */
	uint8_t how;              /* enum call_end of LEAF and CLOSE lines */
	uint64_t ns;              /* OPEN: the call's start; LEAF, CLOSE: its end */
	uint64_t dur;             /* LEAF, CLOSE */
	uint64_t addr;            /* runtime address: the key of its -A/-R spec */
	/* recorded argument and return value payloads (record -A/-R), NULL
	 * when none: they point into the mapped trace */
	const uint8_t *args, *ret;
	uint32_t args_len, ret_len;
	/* NOTE ("mark: text", "N events lost here"): during a walk text points
	 * to it; in the window it is at note_off in struct tui_replay's notes */
	const char *text;
	size_t text_len, note_off;
};

/* the replay lines of one thread, by line number, from a re-read of it */
struct tui_replay {
	struct view *v;
	struct tui_thread *t;
	struct tui_line *win;     /* lines [lo, lo + n) */
	uint64_t lo;
	size_t n, cap;
	char *notes;              /* the texts of the window's NOTE lines */
	size_t notes_len, notes_cap;
};

/* make lines [first, first + count) present in r->win (re-reads when not) */
void tui_replay_window(struct tui_replay *r, uint64_t first, size_t count);
/* the number of the first line after `from` (dir > 0) or the last before it
 * (dir < 0) whose function has match[func] set, or UINT64_MAX; `from`
 * UINT64_MAX with dir > 0 starts at line 0 */
uint64_t tui_replay_find(struct tui_replay *r, uint64_t from, int dir, const uint8_t *match, size_t n_match);
void tui_replay_release(struct tui_replay *r);

#endif
