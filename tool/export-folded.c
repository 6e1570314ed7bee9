/*
 * export-folded.c - folded stacks: one line per distinct call path,
 * "main;parse;lex 1234", the value being the path's self time in ns (or
 * its call count with --value calls).  Paths come from the shared call
 * tree (calltree.c), so the output has one line per tree node with a
 * non-zero value and the self times add up to the traced time exactly.
 *
 * Threads are merged: a path starts at a thread's first frame (main, a
 * thread's start routine); --tid exports one thread.  Frame names are made
 * safe for the format: ';' and control characters become '_', and a name
 * ending in a space and digits gets '_' for that space, so no name can be
 * read as a separator or as the line's count.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tool/calltree.h"
#include "tool/export.h"
#include "tool/flame.h"

/* the name of func made safe for folded stacks (cached per function) */
static const char *safe_name(struct view *v, char ***cache, size_t *n_cache, uint32_t func, size_t *len,
			     char *const *labels, size_t n_labels)
{
	if (func == CT_DEEP) {
		static const char deep[] = "[deeper than 4096 frames]";
		*len = sizeof(deep) - 1;
		return deep;
	}
	if (func >= *n_cache) {
		size_t n = *n_cache ? *n_cache : 256;
		while (n <= func)
			n *= 2;
		*cache = xrealloc(*cache, n * sizeof(**cache));
		memset(*cache + *n_cache, 0, (n - *n_cache) * sizeof(**cache));
		*n_cache = n;
	}
	if (!(*cache)[func]) {
		const char *name = calltree_label(v, labels, n_labels, func);   /* overloads told apart */
		char *s = xmalloc(strlen(name) + 2);
		strcpy(s, name);
		folded_clean_name(s);
		(*cache)[func] = s;
	}
	*len = strlen((*cache)[func]);
	return (*cache)[func];
}

int export_folded(struct view *v, const struct export_opts *o, FILE *out)
{
	struct calltree t;
	struct calltree_build b = { .tree = &t, .mode = CT_ALL, .no_collapse = o->no_collapse };
	char **names = NULL, *path = NULL;
	size_t n_names = 0, cap = 4096, *plen;
	uint32_t *stack;
	size_t sp = 0;

	calltree_init(&t);
	calltree_build(v, &b);
	if (!trace_has_function_events(v->trace)) {
		view_no_events_hint(v);
		calltree_release(&t);
		return -1;
	}
	size_t n_labels;
	char **labels = calltree_labels(v, &t, &n_labels);
	path = xmalloc(cap);
	plen = xmalloc((size_t)t.len * sizeof(*plen));
	stack = xmalloc((size_t)t.len * sizeof(*stack));
	/* depth first, children in call order; plen[i]: length of node i's path */
	if (t.n[0].first_child != CT_NONE)
		stack[sp++] = t.n[0].first_child;
	while (sp) {
		uint32_t i = stack[--sp];
		struct ct_node *n = &t.n[i];
		size_t base = n->parent ? plen[n->parent] : 0, len;
		const char *name = safe_name(v, &names, &n_names, n->func, &len, labels, n_labels);
		uint64_t value = o->value_calls ? n->calls : n->self;

		if (n->next != CT_NONE)
			stack[sp++] = n->next;
		if (n->first_child != CT_NONE)
			stack[sp++] = n->first_child;
		while (base + len + 32 > cap) {
			cap *= 2;
			path = xrealloc(path, cap);
		}
		if (n->parent)
			path[base++] = ';';
		memcpy(path + base, name, len);
		plen[i] = base + len;
		if (value) {
			fwrite(path, 1, base + len, out);
			fprintf(out, " %" PRIu64 "\n", value);
		}
	}
	for (size_t i = 0; i < n_names; i++)
		free(names[i]);
	free(names);
	view_labels_free(labels, n_labels);
	free(path);
	free(plen);
	free(stack);
	calltree_release(&t);
	return 0;
}
