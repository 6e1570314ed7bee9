/*
 * calltree.h - the path-merged call tree that graph, folded, svg and html
 * share.  A node is one distinct call path (parent node, function); every
 * call that took that path adds its count, inclusive and self time to it.
 * Memory grows with distinct paths, never with events: the builder is a
 * calls_ops callback set that streams the trace and keeps only a stack of
 * node ids per thread.
 *
 * Node 0 is a virtual root above every tree; children are kept in creation
 * order (first call first), so printing is deterministic.
 */
#ifndef FNT_CALLTREE_H
#define FNT_CALLTREE_H

#include <stdint.h>
#include "tool/tool.h"

#define CT_NONE UINT32_MAX
/* the func of the node that stands for every frame deeper than CT_MAX_DEPTH
 * on a path: output and memory stay linear in the events at any depth */
#define CT_DEEP (UINT32_MAX - 1)
#define CT_MAX_DEPTH 4096

struct ct_node {
	uint64_t calls;
	uint64_t total;          /* inclusive ns of the calls on this path */
	uint64_t self;           /* total minus callees (hidden -N callees included) */
	uint64_t weight;         /* free for the writers (layout width...) */
	uint64_t rec_calls;      /* calls folded into this node by direct recursion (f called by f) */
	uint32_t func;
	uint32_t parent;
	uint32_t first_child, last_child, next;   /* CT_NONE terminated */
	uint32_t depth;          /* root's children: 0 */
	uint32_t open;           /* callers: anchor activations open on this path */
	uint32_t cache_func, cache_node;   /* the child looked up last (a loop calls the same one) */
};

struct calltree {
	struct ct_node *n;
	uint32_t len, cap;
	uint32_t *hash;          /* node index + 1, 0 empty; key (parent, func) */
	uint32_t hash_mask;
};

void calltree_init(struct calltree *t);
void calltree_release(struct calltree *t);
/* the child of parent for func, created if new */
uint32_t calltree_child(struct calltree *t, uint32_t parent, uint32_t func);

enum ct_mode {
	CT_ALL,                  /* every call, from the threads' first frames */
	CT_UNDER,                /* the subtrees under activations of anchor functions */
	CT_CALLERS,              /* inverted: from each anchor activation up to its root */
};

/* anchor(ctx, func): is func one of the functions the tree hangs from */
typedef int (*ct_anchor_fn)(void *ctx, uint32_t func);

struct calltree_build {
	struct calltree *tree;
	enum ct_mode mode;
	ct_anchor_fn anchor;
	void *anchor_ctx;
	uint64_t anchored;       /* anchor activations seen */
	int no_collapse;         /* keep direct recursion as one level per call (--no-collapse) */
	/* optional: called after the builder for each call (html's extra views) */
	const struct calls_ops *next;
	void *next_ctx;
	struct view *v;          /* (calltree_build sets it) */
};

/* the name a writer prints for a node's func (CT_DEEP included) */
const char *calltree_name(struct view *v, uint32_t func);
/* The labels of the tree's functions that share their displayed name with
 * another one of the tree (view_labels), by func (*n: the array's length);
 * calltree_label gives the label, else calltree_name.  Free with
 * view_labels_free(labels, n). */
char **calltree_labels(struct view *v, const struct calltree *t, size_t *n);
const char *calltree_label(struct view *v, char *const *labels, size_t n, uint32_t func);

/* during a build: a pointer per thread that the next ops may use (NULL at first) */
void **calltree_thread_user(struct trace_thread *th);

/* walk the trace into b->tree (per thread, not time-merged); returns what calls_walk returned */
int calltree_build(struct view *v, struct calltree_build *b);

/* graph-diff.c: graph --diff, the tree t of v against bt of bv merged by
 * path; -D and --min-time as graph's (hidden counts the subtrees left out) */
void graph_diff(struct view *v, struct calltree *t, struct view *bv, struct calltree *bt, int max_depth,
		uint64_t min_ns, uint64_t *hidden);

#endif
