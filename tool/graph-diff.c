/*
 * graph-diff.c - `fntrace graph --diff BASE`: this trace's call tree and
 * another run's, merged path by path, each path with its times and calls in
 * this trace and the change from the base.  Paths are matched by the names
 * of their functions and their modules, as report --diff matches functions
 * (diff_module_cmp: the program matches the other trace's program whatever
 * its file name, a library matches by file name), so a rebuilt binary
 * matches its old self.  A path
 * present in one tree only is shown with zeros for the other ("new" or
 * "gone").  Children keep this trace's order (first called first); paths
 * only the base took follow, in the base's order.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tool/calltree.h"

struct side {
	struct view *v;
	struct calltree *t;
};

struct gd_child {
	const char *name, *module;
	int in_program;
	uint32_t node;
	uint32_t ord;            /* its place among its siblings in the base */
	int used;
};

struct gd_line {
	uint32_t now, base;      /* nodes, CT_NONE where the tree lacks the path */
	uint32_t depth;
	uint8_t last;
};

static void key_of(const struct side *s, uint32_t node, const char **name, const char **module, int *in_program)
{
	uint32_t func = s->t->n[node].func;
	*name = calltree_name(s->v, func);
	*module = "";
	*in_program = 0;
	if (func == CT_DEEP)
		return;
	const struct trace_func *f = &s->v->trace->funcs[func];
	*in_program = f->file != TRACE_NO_FILE && f->file == view_program_file(s->v);
	if (f->file != TRACE_NO_FILE && f->file < s->v->trace->n_files) {
		const char *path = s->v->trace->files[f->file].path, *slash = strrchr(path, '/');
		*module = slash ? slash + 1 : path;
	}
}

static int cmp_child(const void *a, const void *b)
{
	const struct gd_child *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : diff_module_cmp(x->module, x->in_program, y->module, y->in_program);
}

static int cmp_ord(const void *a, const void *b)
{
	const struct gd_child *x = a, *y = b;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static const struct ct_node zero_node;

static const struct ct_node *node_of(const struct side *s, uint32_t node)
{
	return node == CT_NONE ? &zero_node : &s->t->n[node];
}

static void print_line(const struct side *now, const struct side *base, const struct gd_line *l, char **prefix,
		       size_t *cap)
{
	const struct ct_node *a = node_of(now, l->now), *b = node_of(base, l->base);
	const char *name, *module;
	int in_program;
	size_t d = l->depth;

	if (l->now != CT_NONE)
		key_of(now, l->now, &name, &module, &in_program);
	else
		key_of(base, l->base, &name, &module, &in_program);
	diff_columns(a->total, b->total, a->self, b->self, a->calls, b->calls);
	if (3 * d + 3 > *cap) {
		*cap = 2 * (3 * d + 3);
		*prefix = xrealloc(*prefix, *cap);
	}
	if (d) {
		fwrite(*prefix, 1, 3 * (d - 1), stdout);
		fputs("+-", stdout);
		memcpy(*prefix + 3 * (d - 1), l->last ? "   " : "|  ", 3);
	}
	text_fput(name, stdout);
	putchar('\n');
}

void graph_diff(struct view *v, struct calltree *t, struct view *bv, struct calltree *bt, int max_depth,
		uint64_t min_ns, uint64_t *hidden)
{
	struct side now = { v, t }, base = { bv, bt };
	struct gd_line *st = NULL, *kids = NULL;
	struct gd_child *bk = NULL;
	size_t sp = 0, cap_st = 0, cap_kids = 0, cap_bk = 0, cap = 256;
	char *prefix = xmalloc(cap);

	printf("# %s against the base %s, merged by path\n", v->opts->dir, bv->opts->dir);
	fputs(DIFF_HEADER, stdout);
	struct gd_line root = { 0, 0, 0, 1 };
	int first = 1;
	while (first || sp) {
		struct gd_line l = first ? root : st[--sp];
		uint32_t depth = first ? 0 : l.depth + 1;     /* the threads' first frames: 0 */
		if (!first)
			print_line(&now, &base, &l, &prefix, &cap);
		first = 0;
		/* the children of this line: the base's sorted by key, this
		 * trace's in order with their match, then the base's unmatched */
		size_t nb = 0, nk = 0;
		if (l.base != CT_NONE)
			for (uint32_t c = bt->n[l.base].first_child; c != CT_NONE; c = bt->n[c].next) {
				if (nb == cap_bk)
					bk = xrealloc(bk, (cap_bk = cap_bk ? 2 * cap_bk : 64) * sizeof(*bk));
				key_of(&base, c, &bk[nb].name, &bk[nb].module, &bk[nb].in_program);
				bk[nb].node = c;
				bk[nb].ord = (uint32_t)nb;
				bk[nb++].used = 0;
			}
		if (nb)
			qsort(bk, nb, sizeof(*bk), cmp_child);
		size_t total = nb + 1;
		if (l.now != CT_NONE)
			for (uint32_t c = t->n[l.now].first_child; c != CT_NONE; c = t->n[c].next)
				total++;
		if (total > cap_kids)
			kids = xrealloc(kids, (cap_kids = 2 * total) * sizeof(*kids));
		if (l.now != CT_NONE)
			for (uint32_t c = t->n[l.now].first_child; c != CT_NONE; c = t->n[c].next) {
				struct gd_child key;
				key_of(&now, c, &key.name, &key.module, &key.in_program);
				struct gd_child *m = nb ? bsearch(&key, bk, nb, sizeof(*bk), cmp_child) : NULL;
				if (m)
					m->used = 1;
				kids[nk++] = (struct gd_line){ c, m ? m->node : CT_NONE, depth, 0 };
			}
		/* the base's unmatched children, in the base's own order */
		if (nb)
			qsort(bk, nb, sizeof(*bk), cmp_ord);
		for (size_t i = 0; i < nb; i++)
			if (!bk[i].used)
				kids[nk++] = (struct gd_line){ CT_NONE, bk[i].node, depth, 0 };
		/* what is shown: -D levels (FUNC is level 1), --min-time on either side */
		size_t shown = 0;
		for (size_t i = 0; i < nk; i++) {
			uint64_t a = node_of(&now, kids[i].now)->total, b = node_of(&base, kids[i].base)->total;
			if ((a > b ? a : b) < min_ns || (max_depth && (int)kids[i].depth >= max_depth))
				(*hidden)++;
			else
				kids[shown++] = kids[i];
		}
		if (sp + shown > cap_st)
			st = xrealloc(st, (cap_st = 2 * (sp + shown) + 64) * sizeof(*st));
		for (size_t i = shown; i > 0; i--) {
			st[sp] = kids[i - 1];
			st[sp++].last = i == shown;
		}
	}
	free(st);
	free(kids);
	free(bk);
	free(prefix);
}
