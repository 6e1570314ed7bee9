/*
 * export.h - `fntrace export`: the command (cmd-export.c) parses options,
 * opens the trace and a temporary output file, and hands both to one
 * writer per format (export-<format>.c).  The writer streams from the call
 * layer (calls_walk) like every other view; the command renames the
 * temporary file over the target only when the writer succeeded, so a failed
 * export never leaves a half-written file under the target name.
 */
#ifndef FNT_EXPORT_H
#define FNT_EXPORT_H

#include <stdio.h>
#include "tool/tool.h"

struct export_opts {
	const char *format;         /* the --format name */
	const char *output;         /* -o path, "-" for stdout */
	int value_calls;            /* folded/svg: weigh stacks by call count, not self time */
	int inverted;               /* svg: icicle (roots at the top) */
	const char *title;          /* svg/html: page title (default: the traced command) */
	int no_collapse;            /* folded/svg/html: one level per call of a direct recursion */
};

/* A writer returns 0, or -1 after printing a one-line error (error()).
 * It writes only to out; it must not die() halfway, so that the command can
 * remove the temporary file (a die() from xmalloc failure is acceptable). */
typedef int (*export_write_fn)(struct view *v, const struct export_opts *o, FILE *out);

int export_chrome(struct view *v, const struct export_opts *o, FILE *out);
int export_speedscope(struct view *v, const struct export_opts *o, FILE *out);
int export_perfetto(struct view *v, const struct export_opts *o, FILE *out);
int export_folded(struct view *v, const struct export_opts *o, FILE *out);
int export_svg(struct view *v, const struct export_opts *o, FILE *out);
int export_html(struct view *v, const struct export_opts *o, FILE *out);

#endif
