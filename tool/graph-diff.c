/*
 * graph-diff.c - `fntrace graph --diff BASE`: this trace's call tree and
 * another run's, merged path by path, each path with its times and calls in
 * this trace and the change from the base.  Paths are matched by what their
 * functions are (signature, constructor kind, source file: view_match_key;
 * overloads of one name are not one path) and their modules, shown by
 * their labels (graph's names), as report --diff matches functions
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
	char **labels;           /* calltree_labels */
	size_t n_labels;
	char **keys;             /* view_match_key by func, made when first needed */
};

struct gd_child {
	const char *name, *module;      /* name: the match key */
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

static const char *match_key(const struct side *s, uint32_t func)
{
	if (func == CT_DEEP)
		return "\t[deeper than 4096 frames]";
	if (!s->keys[func])
		s->keys[func] = view_match_key(s->v, func);
	return s->keys[func];
}

/* name: the key the node is matched by (match_key), shown: its label */
static void key_of(const struct side *s, uint32_t node, const char **name, const char **module, int *in_program,
		   const char **shown)
{
	uint32_t func = s->t->n[node].func;
	*name = match_key(s, func);
	if (shown)
		*shown = calltree_label(s->v, s->labels, s->n_labels, func);
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

/* the signature: the match key up to its first tab (view_match_key) */
static int cmp_sig(const char *a, const char *b)
{
	size_t la = strcspn(a, "\t"), lb = strcspn(b, "\t");
	int c = memcmp(a, b, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

/* by signature and module (what matches across builds), as report --diff */
static int cmp_sigmod(const void *a, const void *b)
{
	const struct gd_child *x = a, *y = b;
	int c = cmp_sig(x->name, y->name);
	return c ? c : diff_module_cmp(x->module, x->in_program, y->module, y->in_program);
}

/* then by constructor kind and source file */
static int cmp_child(const void *a, const void *b)
{
	int c = cmp_sigmod(a, b);
	return c ? c : strcmp(((const struct gd_child *)a)->name, ((const struct gd_child *)b)->name);
}

/* the base's child for key: one of its kind and file, else the first
 * unused one of its signature and module (a destructor gcc names by its
 * complete variant and clang by its base one) */
static struct gd_child *match_child(const struct gd_child *key, struct gd_child *bk, size_t nb)
{
	struct gd_child *m = nb ? bsearch(key, bk, nb, sizeof(*bk), cmp_sigmod) : NULL;
	if (!m)
		return NULL;
	while (m > bk && !cmp_sigmod(m - 1, key))
		m--;
	for (struct gd_child *p = m; p < bk + nb && !cmp_sigmod(p, key); p++)
		if (!p->used && !strcmp(p->name, key->name))
			return p;
	return NULL;
}

static struct gd_child *match_any(const struct gd_child *key, struct gd_child *bk, size_t nb)
{
	struct gd_child *m = nb ? bsearch(key, bk, nb, sizeof(*bk), cmp_sigmod) : NULL;
	if (!m)
		return NULL;
	while (m > bk && !cmp_sigmod(m - 1, key))
		m--;
	for (; m < bk + nb && !cmp_sigmod(m, key); m++)
		if (!m->used)
			return m;
	return NULL;
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
	const char *key, *name, *module;
	int in_program;
	size_t d = l->depth;

	if (l->now != CT_NONE)
		key_of(now, l->now, &key, &module, &in_program, &name);
	else
		key_of(base, l->base, &key, &module, &in_program, &name);
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
	struct side now = { v, t, NULL, 0, NULL }, base = { bv, bt, NULL, 0, NULL };
	now.labels = calltree_labels(v, t, &now.n_labels);
	base.labels = calltree_labels(bv, bt, &base.n_labels);
	now.keys = xcalloc(v->trace->n_funcs + 1, sizeof(*now.keys));
	base.keys = xcalloc(bv->trace->n_funcs + 1, sizeof(*base.keys));
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
				key_of(&base, c, &bk[nb].name, &bk[nb].module, &bk[nb].in_program, NULL);
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
		if (l.now != CT_NONE) {
			/* those of one kind and file first, then the others of one
			 * signature and module in order */
			for (int pass = 0; pass < 2; pass++) {
				size_t j = 0;
				for (uint32_t c = t->n[l.now].first_child; c != CT_NONE; c = t->n[c].next, j++) {
					struct gd_child key;
					if (pass && kids[j].base != CT_NONE)
						continue;
					key_of(&now, c, &key.name, &key.module, &key.in_program, NULL);
					struct gd_child *m = pass ? match_any(&key, bk, nb) : match_child(&key, bk, nb);
					if (m)
						m->used = 1;
					kids[j] = (struct gd_line){ c, m ? m->node : CT_NONE, depth, 0 };
				}
				nk = j;
			}
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
	for (const struct side *s = &now; s; s = s == &now ? &base : NULL) {
		for (size_t i = 0; i < s->v->trace->n_funcs; i++)
			free(s->keys[i]);
		free(s->keys);
		view_labels_free(s->labels, s->n_labels);
	}
}
