/*
 * cmd-tui.c - `fntrace tui`: the trace on a terminal, with ncurses, for
 * people who work over ssh.  Three views of one trace: the call graph
 * merged by path (folded and unfolded line by line), the per-function
 * report (sorted by any column) and the replay of one thread (searched).
 * A function selected in one view can be found in another.
 *
 * The graph and the report are built in one streaming pass (tui-model.c);
 * the replay is re-read by window (tui-replay.c), so no view holds the
 * events.  Everything is drawn from the models on each key: ncurses sends
 * the terminal only what changed.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <locale.h>
#include <ncurses.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/tui.h"

static const char tui_usage[] =
	"usage: fntrace tui [options]\n\n"
	"An interactive view of a trace on the terminal: the call graph (fold and\n"
	"unfold paths), the report (sort by any column) and the replay of one thread\n"
	"(search it), with the keyboard and the mouse.  '?' lists the keys, 'q' quits.\n\n"
	"  -d, --data DIR         trace directory (default: fntrace.data)\n"
	FILTER_HELP
	"  -D, --depth N          only the first N levels\n"
	"  -t, --time-filter TIME only calls that took at least TIME (5us, 1ms)\n"
	TIME_RANGE_HELP
	"      --debug-dir DIR    also look for debug files under DIR\n"
	"      --prefix-map OLD=NEW  read module files from NEW where OLD was recorded\n"
	"      --no-demangle      keep C++ names mangled\n"
	"      --demangle MODE    C++ names: short (default), full, simple or no\n"
	"      --color WHEN       colour durations by size: auto (default), always\n"
	"                         or never\n"
	"  -h, --help             this help\n\n"
	"Standard input and output must be a terminal; 'fntrace graph', 'report' and\n"
	"'replay' write the same views as text.\n";

static const char *const help_lines[] = {
	"Tab, 1 2 3        the graph, report or replay view",
	"Up Down, j k      move; PgUp PgDn, Home End",
	"Enter, Space      graph: fold or unfold the line",
	"Right Left, l h   graph: unfold / fold (on a folded line: to its caller)",
	"e, c              graph: unfold everything under the line / fold all",
	"s, S              report: sort by the next column / reverse the order",
	"t, T              replay: the next / previous thread",
	"/ TEXT, n, N      find a function (text or glob); next, previous",
	"g, r, p           this function in the graph, the report, the replay",
	"mouse             click a line, a tab or a column; the wheel scrolls",
	"q                 quit",
};

enum { V_GRAPH, V_REPORT, V_REPLAY, N_VIEWS };
static const char *const view_names[N_VIEWS] = { "graph", "report", "replay" };

enum { COL_TOTAL, COL_SELF, COL_CALLS, COL_AVG, COL_MIN, COL_MAX, COL_NAME, N_COLS };
static const char *const col_names[N_COLS] = { "total", "self", "calls", "avg", "min", "max", "name" };

struct tui {
	struct view *v;
	struct tui_model m;
	int view;
	int color;
	/* graph: the tree in pre-order, the unfolded lines shown */
	uint32_t *order, *pos;   /* order[i]: node; pos[node]: i */
	uint8_t *open;           /* per node: its children are shown */
	uint32_t *vis;
	size_t n_vis;
	size_t g_sel, g_top;
	/* report */
	uint32_t *rows;
	size_t n_rows;
	char **label;            /* per func: a name that tells it from others of its name (view_labels), or NULL */
	size_t n_label;
	int sort_col, sort_rev;
	size_t r_sel, r_top;
	/* replay */
	size_t thread;
	struct tui_replay rp;
	uint64_t p_sel, p_top;
	/* search */
	char search[256];
	uint8_t *match;          /* per func: matches the search */
	size_t n_match;
	char msg[300];
};

static int curses_on;

static void end_curses(void)
{
	if (curses_on) {
		endwin();
		curses_on = 0;
	}
}

static int page_height(void)
{
	return LINES > 3 ? LINES - 3 : 1;
}

/* a function as the report and graph show it: overloads by their
 * signatures, static functions of one name by file (view_labels) */
static const char *func_label(const struct tui *u, uint32_t func)
{
	if (func < u->n_label && u->label[func])
		return u->label[func];
	return calltree_name(u->v, func);
}

/* ---- graph ---- */

static void graph_order(struct tui *u)
{
	struct calltree *t = &u->m.tree;
	uint32_t *st = xmalloc((size_t)t->len * sizeof(*st));
	size_t sp = 0, n = 0;
	u->order = xmalloc((size_t)t->len * sizeof(*u->order));
	u->pos = xmalloc((size_t)t->len * sizeof(*u->pos));
	u->open = xcalloc(t->len, 1);
	u->vis = xmalloc((size_t)t->len * sizeof(*u->vis));
	st[sp++] = 0;
	while (sp) {
		uint32_t node = st[--sp];
		u->pos[node] = (uint32_t)n;
		u->order[n++] = node;
		size_t first = sp;
		for (uint32_t c = t->n[node].first_child; c != CT_NONE; c = t->n[c].next)
			st[sp++] = c;
		for (size_t a = first, b = sp; b > a + 1; a++, b--) {   /* first child out first */
			uint32_t x = st[a];
			st[a] = st[b - 1];
			st[b - 1] = x;
		}
	}
	free(st);
	u->open[0] = 1;
	for (uint32_t c = t->n[0].first_child; c != CT_NONE; c = t->n[c].next)
		u->open[c] = 1;          /* the threads' first frames show what they call */
}

/* the shown lines: the unfolded part of the tree, in pre-order */
static void graph_lines(struct tui *u)
{
	struct calltree *t = &u->m.tree;
	size_t n = 0;
	for (size_t i = 1; i < t->len;) {
		uint32_t node = u->order[i];
		u->vis[n++] = node;
		if (u->open[node] || t->n[node].first_child == CT_NONE) {
			i++;
			continue;
		}
		/* skip the folded subtree: up to the next node not below this one */
		uint32_t d = t->n[node].depth;
		for (i++; i < t->len && t->n[u->order[i]].depth > d; i++)
			;
	}
	u->n_vis = n;
	if (u->g_sel >= n)
		u->g_sel = n ? n - 1 : 0;
}

static void graph_select(struct tui *u, uint32_t node)
{
	for (uint32_t p = u->m.tree.n[node].parent; p != CT_NONE && p; p = u->m.tree.n[p].parent)
		u->open[p] = 1;
	graph_lines(u);
	for (size_t i = 0; i < u->n_vis; i++)
		if (u->vis[i] == node)
			u->g_sel = i;
}

static void graph_toggle(struct tui *u)
{
	if (!u->n_vis)
		return;
	uint32_t node = u->vis[u->g_sel];
	if (u->m.tree.n[node].first_child == CT_NONE)
		return;
	u->open[node] = !u->open[node];
	graph_lines(u);
}

static void graph_unfold_below(struct tui *u)
{
	struct calltree *t = &u->m.tree;
	if (!u->n_vis)
		return;
	uint32_t node = u->vis[u->g_sel], d = t->n[node].depth;
	u->open[node] = 1;
	for (size_t i = u->pos[node] + 1; i < t->len && t->n[u->order[i]].depth > d; i++)
		u->open[u->order[i]] = 1;
	graph_lines(u);
}

static void graph_fold_all(struct tui *u)
{
	uint32_t node = u->n_vis ? u->vis[u->g_sel] : 0;
	memset(u->open, 0, u->m.tree.len);
	u->open[0] = 1;
	while (node && u->m.tree.n[node].depth > 0)   /* keep the line on its first frame */
		node = u->m.tree.n[node].parent;
	graph_lines(u);
	graph_select(u, node ? node : (u->n_vis ? u->vis[0] : 0));
}

/* ---- report ---- */

static uint64_t col_value(const struct tui_fstat *s, int col)
{
	switch (col) {
	case COL_TOTAL: return s->total;
	case COL_SELF: return s->self;
	case COL_CALLS: return s->calls;
	case COL_AVG: return mean_ns(s->sum, s->timed);
	case COL_MIN: return s->min;
	case COL_MAX: return s->max;
	}
	return 0;
}

static struct tui *sorting;

static int row_cmp(const void *a, const void *b)
{
	uint32_t fa = *(const uint32_t *)a, fb = *(const uint32_t *)b;
	struct tui *u = sorting;
	int c = 0;
	if (u->sort_col != COL_NAME) {
		uint64_t x = col_value(&u->m.fs[fa], u->sort_col), y = col_value(&u->m.fs[fb], u->sort_col);
		c = x > y ? -1 : x < y;       /* largest first */
	}
	if (!c)
		c = strcmp(func_label(u, fa), func_label(u, fb));
	if (!c)
		c = fa < fb ? -1 : fa > fb;
	return u->sort_rev ? -c : c;
}

static void report_sort(struct tui *u)
{
	uint32_t func = u->n_rows ? u->rows[u->r_sel] : 0;
	sorting = u;
	qsort(u->rows, u->n_rows, sizeof(*u->rows), row_cmp);
	for (size_t i = 0; i < u->n_rows; i++)
		if (u->rows[i] == func)
			u->r_sel = i;
}

static void report_rows(struct tui *u)
{
	for (size_t f = 0; f < u->m.n_fs; f++)
		if (u->m.fs[f].calls) {
			u->rows = xrealloc(u->rows, (u->n_rows + 1) * sizeof(*u->rows));
			u->rows[u->n_rows++] = (uint32_t)f;
		}
	char **l = view_labels(u->v, u->rows, u->n_rows);
	u->n_label = u->m.n_fs;
	u->label = xcalloc(u->n_label + 1, sizeof(*u->label));
	for (size_t i = 0; i < u->n_rows; i++)
		u->label[u->rows[i]] = l[i];
	free(l);
	report_sort(u);
	u->r_sel = 0;
}

/* ---- replay ---- */

static struct tui_thread *cur_thread(struct tui *u)
{
	return &u->m.threads[u->thread];
}

static void replay_thread(struct tui *u, size_t i)
{
	tui_replay_release(&u->rp);
	u->thread = i;
	u->rp.v = u->v;
	u->rp.t = cur_thread(u);
	u->rp.lo = 0;
	u->p_sel = u->p_top = 0;
}

static const struct tui_line *replay_line(struct tui *u, uint64_t no)
{
	if (no < u->rp.lo || no >= u->rp.lo + u->rp.n)
		return NULL;
	return &u->rp.win[no - u->rp.lo];
}

/* ---- drawing ---- */

static void put_text(const char *s, attr_t a)
{
	int y, x;
	getyx(stdscr, y, x);
	(void)y;
	size_t len = 0, n = strlen(s);
	char *esc = NULL;
	/* every text on the screen goes through here: the program's names,
	 * thread names and marks with their control characters escaped (a
	 * newline would move the cursor, an escape reach the terminal) */
	if (text_escaped_len(s, n) != n)
		s = esc = text_escape_dup(s);
	/* clip at the right edge, counting UTF-8 characters, not bytes */
	for (int col = x; s[len] && col < COLS; col++) {
		len++;
		while ((s[len] & 0xc0) == 0x80)
			len++;
	}
	attron(a);
	addnstr(s, (int)len);
	attroff(a);
	free(esc);
}

static void put_dur(struct tui *u, uint64_t ns, attr_t a)
{
	char buf[32];
	short pair = 0;
	format_duration(buf, sizeof(buf), ns);
	if (u->color && ns >= 10000)
		pair = ns >= 1000000000ull ? 3 : ns >= 1000000 ? 2 : 1;
	put_text(buf, a | (pair ? COLOR_PAIR(pair) : 0));
}

/* the rest of the line in the line's attribute (the selection bar) */
static void fill_line(attr_t a)
{
	int y, x;
	getyx(stdscr, y, x);
	(void)y;
	attron(a);
	for (; x < COLS; x++)
		addch(' ');
	attroff(a);
}

static void put_indent(int depth, attr_t a)
{
	int n = 2 * depth, room = COLS / 2;
	char sp[64];
	memset(sp, ' ', sizeof(sp) - 1);
	sp[sizeof(sp) - 1] = 0;
	if (n > room)
		n = room;
	while (n > 0) {
		int k = n < 63 ? n : 63;
		sp[k] = 0;
		put_text(sp, a);
		sp[k] = ' ';
		n -= k;
	}
}

static void draw_graph(struct tui *u, int h)
{
	struct calltree *t = &u->m.tree;
	char buf[64];
	move(1, 0);
	put_text("  Total time   Self time       Calls  Function", A_BOLD);
	for (int i = 0; i < h && u->g_top + (size_t)i < u->n_vis; i++) {
		size_t line = u->g_top + (size_t)i;
		const struct ct_node *n = &t->n[u->vis[line]];
		attr_t a = line == u->g_sel ? A_REVERSE : 0;
		move(2 + i, 0);
		put_text("  ", a);
		put_dur(u, n->total, a);
		put_text("  ", a);
		put_dur(u, n->self, a);
		snprintf(buf, sizeof(buf), "  %10" PRIu64 "  ", n->calls);
		put_text(buf, a);
		put_indent((int)n->depth, a);
		put_text(n->first_child == CT_NONE ? "  " : u->open[u->vis[line]] ? "- " : "+ ", a);
		put_text(func_label(u, n->func), a);
		if (n->rec_calls && n->func != CT_DEEP) {
			snprintf(buf, sizeof(buf), " [recursive: %" PRIu64 "]", n->rec_calls);
			put_text(buf, a);
		}
		fill_line(a);
	}
}

static void draw_report(struct tui *u, int h)
{
	static const char *const heads[N_COLS] = {
		"  Total time", "   Self time", "       Calls", "    Avg time", "    Min time", "    Max time",
		"  Function",
	};
	char buf[32];
	move(1, 0);
	for (int c = 0; c < N_COLS; c++)
		put_text(heads[c], A_BOLD | (c == u->sort_col ? A_UNDERLINE : 0));
	for (int i = 0; i < h && u->r_top + (size_t)i < u->n_rows; i++) {
		size_t row = u->r_top + (size_t)i;
		const struct tui_fstat *s = &u->m.fs[u->rows[row]];
		attr_t a = row == u->r_sel ? A_REVERSE : 0;
		move(2 + i, 0);
		for (int c = 0; c < COL_NAME; c++) {
			put_text("  ", a);
			if (c == COL_CALLS) {
				snprintf(buf, sizeof(buf), "%10" PRIu64, s->calls);
				put_text(buf, a);
			} else {
				put_dur(u, col_value(s, c), a);
			}
		}
		put_text("  ", a);
		put_text(func_label(u, u->rows[row]), a);
		fill_line(a);
	}
}

/* " (no return: unwound)", the words the other views use (call_end_text) */
static void put_end(const struct trace_thread *th, enum call_end how, attr_t a)
{
	if (how == CALL_RETURN)
		return;
	put_text(" (no return: ", a);
	put_text(call_end_text(th, how), a);
	put_text(")", a);
}

static void draw_replay(struct tui *u, int h)
{
	struct tui_thread *t = cur_thread(u);
	move(1, 0);
	put_text("    DURATION     ELAPSED  FUNCTION", A_BOLD);
	tui_replay_window(&u->rp, u->p_top, (size_t)h);
	for (int i = 0; i < h && u->p_top + (uint64_t)i < t->lines; i++) {
		uint64_t no = u->p_top + (uint64_t)i;
		const struct tui_line *l = replay_line(u, no);
		attr_t a = no == u->p_sel ? A_REVERSE : 0;
		if (!l)
			break;
		move(2 + i, 0);
		put_text("  ", a);
		if (l->kind == LINE_OPEN || l->kind == LINE_NOTE)
			put_text("          ", a);
		else
			put_dur(u, l->dur, a);
		put_text("  ", a);
		char el[32];
		format_duration(el, sizeof(el), l->ns);
		put_text(el, a);
		put_text("  ", a);
		put_indent(l->depth, a);
		if (l->kind == LINE_NOTE) {       /* a mark, or events lost here */
			put_text("/* ", a);
			put_text(u->rp.notes + l->note_off, a);
			put_text(" */", a);
			fill_line(a);
			continue;
		}
		const char *name = view_name(u->v, l->func);
		struct trace_process *proc = t->th->proc;
		const char *spec = proc->n_argspecs ? trace_argspec(proc, l->addr) : NULL;
		char args[512], ret[256];
		size_t n_ret = 0;
		/* the values record -A/-R captured, as replay shows them */
		if (spec && l->kind != LINE_CLOSE)
			args_format(spec, proc->hdr.version, l->args, l->args_len, 0, args, sizeof(args));
		else
			args[0] = 0;
		if (spec && l->kind != LINE_OPEN && l->how == CALL_RETURN) {
			n_ret = args_format(spec, proc->hdr.version, l->ret, l->ret_len, 1, ret + 3, sizeof(ret) - 3);
			memcpy(ret, " = ", 3);
		}
		if (!n_ret)
			ret[0] = 0;
		if (l->kind != LINE_CLOSE) {
			put_text(name, a);
			if (!view_name_has_params(u->v, l->func)) {
				put_text("(", a);
				put_text(args, a);
				put_text(")", a);
			} else if (args[0]) {    /* as replay: "n::f(int) with (1)" */
				put_text(" with (", a);
				put_text(args, a);
				put_text(")", a);
			}
		}
		if (l->kind == LINE_OPEN) {
			put_text(" {", a);
		} else if (l->kind == LINE_LEAF) {
			put_text(ret, a);
			put_text(";", a);
			if (l->how != CALL_RETURN) {
				put_text(" /*", a);
				put_end(t->th, l->how, a);
				put_text(" */", a);
			}
		} else {
			put_text("}", a);
			put_text(ret, a);
			put_text(" /* ", a);
			put_text(name, a);
			put_end(t->th, l->how, a);
			put_text(" */", a);
		}
		fill_line(a);
	}
}

static void draw_status(struct tui *u)
{
	char buf[400];
	move(LINES - 1, 0);
	if (u->msg[0]) {
		put_text(u->msg, A_BOLD);
	} else if (u->view == V_GRAPH) {
		snprintf(buf, sizeof(buf), "graph: line %zu of %zu, %u paths   ?: keys  q: quit",
			 u->n_vis ? u->g_sel + 1 : 0, u->n_vis, u->m.tree.len - 1);
		put_text(buf, 0);
	} else if (u->view == V_REPORT) {
		snprintf(buf, sizeof(buf), "report: row %zu of %zu functions, by %s%s   ?: keys  q: quit",
			 u->n_rows ? u->r_sel + 1 : 0, u->n_rows, col_names[u->sort_col],
			 u->sort_rev ? " (reversed)" : "");
		put_text(buf, 0);
	} else {
		struct tui_thread *t = cur_thread(u);
		snprintf(buf, sizeof(buf), "replay: thread %zu of %zu, line %" PRIu64 " of %" PRIu64 ", tid %u '%s'"
			 "   ?: keys  q: quit", u->thread + 1, u->m.n_threads, t->lines ? u->p_sel + 1 : 0, t->lines,
			 t->th->tid, t->th->name);
		put_text(buf, 0);
	}
	fill_line(0);
}

static void draw(struct tui *u)
{
	char buf[64];
	int h = page_height();
	erase();
	move(0, 0);
	for (int i = 0; i < N_VIEWS; i++) {
		snprintf(buf, sizeof(buf), " %d %s ", i + 1, view_names[i]);
		put_text(buf, i == u->view ? A_REVERSE | A_BOLD : 0);
		put_text(" ", 0);
	}
	put_text(" ", 0);
	put_text(u->v->opts->dir, 0);
	if (u->view == V_GRAPH)
		draw_graph(u, h);
	else if (u->view == V_REPORT)
		draw_report(u, h);
	else
		draw_replay(u, h);
	draw_status(u);
	refresh();
}

static void draw_help(struct tui *u)
{
	size_t n = sizeof(help_lines) / sizeof(*help_lines);
	draw(u);
	for (size_t i = 0; i < n + 2 && (int)i + 1 < LINES; i++) {
		move(1 + (int)i, 2);
		put_text(i == 0 ? " keys (any key closes this) " : i <= n ? " " : "", A_REVERSE);
		if (i && i <= n)
			put_text(help_lines[i - 1], A_REVERSE);
		int y, x;
		getyx(stdscr, y, x);
		(void)y;
		attron(A_REVERSE);
		for (; x < 78 && x < COLS; x++)
			addch(' ');
		attroff(A_REVERSE);
	}
	refresh();
}

/* ---- moving ---- */

static void keep_visible(size_t *sel, size_t *top, size_t n)
{
	size_t h = (size_t)page_height();
	if (*sel >= n)
		*sel = n ? n - 1 : 0;
	if (*sel < *top)
		*top = *sel;
	if (*sel >= *top + h)
		*top = *sel - h + 1;
	if (*top + h > n)
		*top = n > h ? n - h : 0;
}

static void move_sel(struct tui *u, int64_t d)
{
	size_t *sel, *top, n;
	if (u->view == V_REPLAY) {
		uint64_t lines = cur_thread(u)->lines;
		int64_t s = (int64_t)u->p_sel + d;
		u->p_sel = s < 0 ? 0 : (uint64_t)s >= lines ? (lines ? lines - 1 : 0) : (uint64_t)s;
		size_t sel64 = u->p_sel, top64 = u->p_top;   /* size_t is 64 bits here */
		keep_visible(&sel64, &top64, lines);
		u->p_sel = sel64;
		u->p_top = top64;
		return;
	}
	if (u->view == V_GRAPH) {
		sel = &u->g_sel, top = &u->g_top, n = u->n_vis;
	} else {
		sel = &u->r_sel, top = &u->r_top, n = u->n_rows;
	}
	int64_t s = (int64_t)*sel + d;
	*sel = s < 0 ? 0 : (size_t)s >= n ? (n ? n - 1 : 0) : (size_t)s;
	keep_visible(sel, top, n);
}

/* the function of the selected line, or UINT32_MAX */
static uint32_t selected_func(struct tui *u)
{
	if (u->view == V_GRAPH) {
		uint32_t f = u->n_vis ? u->m.tree.n[u->vis[u->g_sel]].func : UINT32_MAX;
		return f == CT_DEEP ? UINT32_MAX : f;
	}
	if (u->view == V_REPORT)
		return u->n_rows ? u->rows[u->r_sel] : UINT32_MAX;
	tui_replay_window(&u->rp, u->p_sel, 1);
	const struct tui_line *l = replay_line(u, u->p_sel);
	return l && l->kind != LINE_NOTE ? l->func : UINT32_MAX;
}

static void replay_goto(struct tui *u, uint64_t line)
{
	u->p_sel = line;
	u->p_top = line > 3 ? line - 3 : 0;   /* a few lines of context above */
	move_sel(u, 0);
}

static void status_now(struct tui *u, const char *text)
{
	snprintf(u->msg, sizeof(u->msg), "%s", text);
	draw_status(u);
	refresh();
	u->msg[0] = 0;
}

/* g, r, p: the function of the selected line in another view */
static void jump(struct tui *u, int to)
{
	uint32_t func = selected_func(u);
	const char *name;
	if (func == UINT32_MAX)
		return;
	name = view_name(u->v, func);
	if (to == V_GRAPH) {
		for (uint32_t i = 1; i < u->m.tree.len; i++)
			if (u->m.tree.n[u->order[i]].func == func) {
				graph_select(u, u->order[i]);
				break;
			}
		u->view = V_GRAPH;
		move_sel(u, 0);
	} else if (to == V_REPORT) {
		for (size_t i = 0; i < u->n_rows; i++)
			if (u->rows[i] == func)
				u->r_sel = i;
		u->view = V_REPORT;
		move_sel(u, 0);
	} else {
		size_t k = u->thread;
		for (size_t i = 0; i < u->m.n_threads; i++)
			if (tui_thread_has(&u->m.threads[(u->thread + i) % u->m.n_threads], func)) {
				k = (u->thread + i) % u->m.n_threads;
				break;
			}
		if (!tui_thread_has(&u->m.threads[k], func)) {
			snprintf(u->msg, sizeof(u->msg), "'%s' has no line in the replay", name);
			return;
		}
		uint8_t *one = xcalloc((size_t)func + 1, 1);
		one[func] = 1;
		if (k != u->thread)
			replay_thread(u, k);
		u->view = V_REPLAY;
		status_now(u, "reading the thread...");
		uint64_t line = tui_replay_find(&u->rp, UINT64_MAX, 1, one, (size_t)func + 1);
		free(one);
		if (line != UINT64_MAX)
			replay_goto(u, line);
	}
}

/* ---- search ---- */

static int read_search(struct tui *u)
{
	char buf[sizeof(u->search)];
	size_t n = 0;
	buf[0] = 0;
	for (;;) {
		move(LINES - 1, 0);
		put_text("/", A_BOLD);
		put_text(buf, 0);
		fill_line(0);
		move(LINES - 1, 1 + (int)n < COLS ? 1 + (int)n : COLS - 1);
		curs_set(1);
		refresh();
		int c = getch();
		curs_set(0);
		if (c == '\n' || c == '\r' || c == KEY_ENTER)
			break;
		if (c == 27 || c == 7 || c == 3)
			return 0;
		if (c == KEY_RESIZE) {
			draw(u);
			continue;
		}
		if (c == KEY_BACKSPACE || c == 127 || c == 8) {
			if (n)
				buf[--n] = 0;
			continue;
		}
		if (c >= 0x20 && c < 0x100 && c != 127 && n + 1 < sizeof(buf)) {
			buf[n++] = (char)c;
			buf[n] = 0;
		}
	}
	if (!n)
		return u->search[0] != 0;    /* an empty search repeats the last one */
	memcpy(u->search, buf, n + 1);
	free(u->match);
	u->match = NULL;
	u->n_match = 0;
	return 1;
}

/* which functions the search matches: a glob when it has one of * ? [,
 * else a part of the name (short or full) */
static void search_match(struct tui *u)
{
	size_t nf = u->v->trace->n_funcs;
	int glob = strpbrk(u->search, "*?[") != NULL;
	if (u->match && u->n_match == nf)
		return;
	free(u->match);
	u->match = xcalloc(nf ? nf : 1, 1);
	u->n_match = nf;
	for (size_t f = 0; f < nf; f++) {
		if (f >= u->m.n_fs || !u->m.fs[f].calls)
			continue;
		const char *s = view_name(u->v, (uint32_t)f), *full = view_sig_name(u->v, (uint32_t)f);
		u->match[f] = glob ? !fnmatch(u->search, s, 0) || !fnmatch(u->search, full, 0)
				   : strstr(s, u->search) || strstr(full, u->search);
	}
}

static int func_matches(struct tui *u, uint32_t func)
{
	return func < u->n_match && u->match[func];
}

static void search(struct tui *u, int dir)
{
	int wrapped = 0;
	if (!u->search[0]) {
		snprintf(u->msg, sizeof(u->msg), "no search yet: '/' starts one");
		return;
	}
	search_match(u);
	if (u->view == V_GRAPH) {
		struct calltree *t = &u->m.tree;
		size_t at = u->n_vis ? u->pos[u->vis[u->g_sel]] : 0;
		for (size_t k = 1; k < t->len; k++) {
			size_t i = dir > 0 ? at + k : at + t->len - k;
			i %= t->len;
			if (i == 0)
				continue;
			if (func_matches(u, t->n[u->order[i]].func) && t->n[u->order[i]].func != CT_DEEP) {
				wrapped = dir > 0 ? i <= at : i >= at;
				graph_select(u, u->order[i]);
				move_sel(u, 0);
				goto found;
			}
		}
	} else if (u->view == V_REPORT) {
		for (size_t k = 1; k <= u->n_rows; k++) {
			size_t i = (dir > 0 ? u->r_sel + k : u->r_sel + u->n_rows - k) % u->n_rows;
			if (func_matches(u, u->rows[i])) {
				wrapped = dir > 0 ? i <= u->r_sel : i >= u->r_sel;
				u->r_sel = i;
				move_sel(u, 0);
				goto found;
			}
		}
	} else {
		uint64_t line;
		int here = 0;
		for (size_t f = 0; f < u->n_match && !here; f++)   /* no pass over a thread that never called it */
			here = u->match[f] && tui_thread_has(cur_thread(u), (uint32_t)f);
		if (!here)
			goto none;
		status_now(u, "searching the thread...");
		line = tui_replay_find(&u->rp, u->p_sel, dir, u->match, u->n_match);
		if (line == UINT64_MAX) {
			wrapped = 1;
			line = tui_replay_find(&u->rp, dir > 0 ? UINT64_MAX : cur_thread(u)->lines, dir, u->match,
					       u->n_match);
		}
		if (line != UINT64_MAX) {
			replay_goto(u, line);
			goto found;
		}
	}
none:
	snprintf(u->msg, sizeof(u->msg), "'%s' matches no %s", u->search,
		 u->view == V_REPLAY ? "line of this thread" : "function");
	return;
found:
	if (wrapped)
		snprintf(u->msg, sizeof(u->msg), "search wrapped around");
}

/* ---- keys and mouse ---- */

static void click(struct tui *u, MEVENT *e)
{
	if (e->bstate & BUTTON4_PRESSED) {
		move_sel(u, -3);
		return;
	}
	if (e->bstate & BUTTON5_PRESSED) {
		move_sel(u, 3);
		return;
	}
	if (!(e->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)))
		return;
	if (e->y == 0) {                 /* the tabs: " 1 graph "  " 2 report " ... */
		int x = 0;
		for (int i = 0; i < N_VIEWS; i++) {
			int w = (int)strlen(view_names[i]) + 5;
			if (e->x >= x && e->x < x + w)
				u->view = i;
			x += w;
		}
		return;
	}
	if (e->y == 1 && u->view == V_REPORT) {     /* a column header sorts by it */
		int col = e->x < 12 * COL_NAME ? e->x / 12 : COL_NAME;
		u->sort_rev = col == u->sort_col ? !u->sort_rev : 0;
		u->sort_col = col;
		report_sort(u);
		move_sel(u, 0);
		return;
	}
	if (e->y < 2 || e->y >= LINES - 1)
		return;
	size_t row = (size_t)(e->y - 2);
	if (u->view == V_GRAPH && u->g_top + row < u->n_vis) {
		if (u->g_sel == u->g_top + row)      /* a click on the selected line folds or unfolds it */
			graph_toggle(u);
		u->g_sel = u->g_top + row;
	} else if (u->view == V_REPORT && u->r_top + row < u->n_rows) {
		u->r_sel = u->r_top + row;
	} else if (u->view == V_REPLAY && u->p_top + row < cur_thread(u)->lines) {
		u->p_sel = u->p_top + row;
	}
	move_sel(u, 0);
}

/* one key; returns 0 to quit */
static int key(struct tui *u, int c)
{
	int h = page_height();
	u->msg[0] = 0;
	switch (c) {
	case 'q': case 'Q': case 3:
		return 0;
	case '?': case KEY_F(1):
		do {
			draw_help(u);
			c = getch();
		} while (c == KEY_RESIZE);
		break;
	case '\t': u->view = (u->view + 1) % N_VIEWS; break;
	case KEY_BTAB: u->view = (u->view + N_VIEWS - 1) % N_VIEWS; break;
	case '1': case '2': case '3': u->view = c - '1'; break;
	case KEY_UP: case 'k': move_sel(u, -1); break;
	case KEY_DOWN: case 'j': move_sel(u, 1); break;
	case KEY_PPAGE: case 'b': move_sel(u, -h); break;
	case KEY_NPAGE: move_sel(u, h); break;
	case KEY_HOME: case '<': move_sel(u, INT64_MIN / 2); break;
	case KEY_END: case '>':
		if (u->view == V_REPLAY && cur_thread(u)->lines > 100000)
			status_now(u, "reading the thread...");
		move_sel(u, INT64_MAX / 2);
		break;
	case '\n': case '\r': case KEY_ENTER: case ' ':
		if (u->view == V_GRAPH)
			graph_toggle(u);
		else if (c == ' ')
			move_sel(u, h);
		break;
	case KEY_RIGHT: case 'l':
		if (u->view == V_GRAPH && u->n_vis) {
			uint32_t node = u->vis[u->g_sel];
			if (u->m.tree.n[node].first_child != CT_NONE && !u->open[node])
				graph_toggle(u);
			else
				move_sel(u, 1);
		}
		break;
	case KEY_LEFT: case 'h':
		if (u->view == V_GRAPH && u->n_vis) {
			uint32_t node = u->vis[u->g_sel];
			if (u->m.tree.n[node].first_child != CT_NONE && u->open[node])
				graph_toggle(u);
			else if (u->m.tree.n[node].parent)
				graph_select(u, u->m.tree.n[node].parent);
			move_sel(u, 0);
		}
		break;
	case 'e': if (u->view == V_GRAPH) graph_unfold_below(u); break;
	case 'c': if (u->view == V_GRAPH) { graph_fold_all(u); move_sel(u, 0); } break;
	case 's': case 'S':
		if (u->view != V_REPORT)
			break;
		if (c == 's') {
			u->sort_col = (u->sort_col + 1) % N_COLS;
			u->sort_rev = 0;
		} else {
			u->sort_rev = !u->sort_rev;
		}
		report_sort(u);
		move_sel(u, 0);
		break;
	case 't': case 'T':
		if (u->view == V_REPLAY && u->m.n_threads > 1)
			replay_thread(u, (u->thread + (c == 't' ? 1 : u->m.n_threads - 1)) % u->m.n_threads);
		break;
	case '/':
		if (read_search(u))
			search(u, 1);
		break;
	case 'n': search(u, 1); break;
	case 'N': search(u, -1); break;
	case 'g': jump(u, V_GRAPH); break;
	case 'r': jump(u, V_REPORT); break;
	case 'p': jump(u, V_REPLAY); break;
	case KEY_MOUSE: {
		MEVENT e;
		if (getmouse(&e) == OK)
			click(u, &e);
		break;
	}
	case KEY_RESIZE:
		move_sel(u, 0);
		break;
	}
	return 1;
}

int cmd_tui(int argc, char **argv)
{
	static const struct option longopts[] = {
		VIEW_LONGOPTS, FILTER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct view_opts o = { 0 };
	struct view v;
	struct tui u = { .v = &v };
	int opt, ret = 0;

	opterr = 0;
	optind = 1;
	while ((opt = fnt_getopt_long(argc, argv, ":d:F:N:H:C:D:t:h", longopts, NULL)) != -1) {
		if (view_opt(&o, opt, optarg))
			continue;
		switch (opt) {
		case 'h': fputs(tui_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s' (tui takes options only)", argv[optind]);
	view_open(&v, &o);
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		error_msg("tui needs a terminal: standard %s is not one (use 'fntrace replay', 'report' or 'graph' "
			  "for text)", isatty(STDOUT_FILENO) ? "input" : "output");
		exit(2);
	}
	progress_begin(v.trace, "reading the trace", 0);   /* before the screen is taken */
	tui_model_build(&u.m, &v);
	progress_end();
	if (!trace_has_function_events(v.trace)) {
		view_no_events_hint(&v);
		ret = 1;
		goto out;
	}
	if (!u.m.calls) {
		error_msg("no call in '%s' passes these filters", o.dir);
		ret = 1;
		goto out;
	}
	graph_order(&u);
	graph_lines(&u);
	report_rows(&u);
	for (size_t i = 0; i < u.m.n_threads; i++)   /* the replay starts on the first thread with lines */
		if (u.m.threads[i].lines) {
			replay_thread(&u, i);
			break;
		}
	if (!u.rp.t)
		replay_thread(&u, 0);

	setlocale(LC_ALL, "");
	if (!initscr())
		die("cannot start the terminal (TERM='%s')", getenv("TERM") ? getenv("TERM") : "");
	curses_on = 1;
	atexit(end_curses);
	raw();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(50);
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	u.color = o.color >= 0 && has_colors();
	if (u.color) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_YELLOW, -1);
		init_pair(2, COLOR_RED, -1);
		init_pair(3, COLOR_MAGENTA, -1);
	}
	do
		draw(&u);
	while (key(&u, getch()));
	end_curses();
out:
	free(u.order);
	free(u.pos);
	free(u.open);
	free(u.vis);
	free(u.rows);
	view_labels_free(u.label, u.n_label);
	free(u.match);
	tui_replay_release(&u.rp);
	tui_model_release(&u.m);
	view_report_problems(&v);
	view_close(&v);
	return ret;
}
