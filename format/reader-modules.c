/*
 * reader-modules.c - which module of a process held an address at a time.
 *
 * A process's module map is a set of rectangles: an address range [lo, hi)
 * by the time the module was mapped.  Modules come and go (dlopen, dlclose,
 * another library loaded where one was), and a trace from someone else may
 * hold any number of them, overlapping at will.  Each lookup is therefore a
 * search in an index built once at open, never a scan of the map (a scan
 * per named scope and per distinct address made opening and walking a
 * hostile trace quadratic):
 *
 *   - the ends of every range, sorted, cut the address space into
 *     elementary segments; a segment tree over them keeps each module in
 *     the O(log n) nodes whose segments make up its range exactly, so the
 *     modules that contain an address are those of the nodes on the path
 *     from its segment's leaf to the root;
 *   - each node keeps its modules in index order and by load time, and for
 *     each of the two clocks (ticks for the decoder, trace ns for the
 *     views) the points where one of its modules comes or goes, with the
 *     lowest module index alive between each point and the next.
 *
 * A lookup is a binary search in each node on that path, O(log^2 n); the
 * index takes O(n log n) memory at most.  The answers are the linear scan's
 * (first module in record order that is alive; else the next to load; else
 * the last in record order), tie for tie: tests/unit/test-readsafe.c
 * compares the two on random overlapping maps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/reader-internal.h"

#define NONE UINT32_MAX

/* For each node, when its modules come and go on one clock. */
struct slice_table {
	size_t *start;          /* node k's points: [start[k], start[k + 1]) */
	uint64_t *at;           /* a point: a module of the node comes or goes */
	uint32_t *first;        /* lowest module index alive from at[i] to the node's next point */
};

struct module_index {
	uint64_t *bounds;       /* the ends of all ranges, sorted, distinct */
	size_t n_bounds;
	size_t leaves;          /* a power of two >= n_bounds - 1; node 1 is the root */
	size_t *start;          /* node k's modules: [start[k], start[k + 1]) of mods and by_load */
	uint32_t *mods;         /* in index order */
	uint32_t *by_load;      /* by (load_ticks, index) */
	struct slice_table ticks, ns;
};

static void *xmalloc_n(size_t n, size_t size)
{
	void *p = n ? calloc(n, size) : malloc(1);
	if (!p) {
		fprintf(stderr, "fntrace: out of memory\n");
		exit(1);
	}
	return p;
}

static int cmp_u64_(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* the first i in v[0..n) with v[i] >= x */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the first i in v[0..n) with v[i] > x */
static size_t upper_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t sort_unique(uint64_t *v, size_t n)
{
	size_t k = 0;
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u64_);
	for (size_t i = 0; i < n; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

/* The nodes whose segments make up module m's range exactly, at most 2 per
 * level of the tree: returns how many (none for an empty range). */
static size_t module_nodes(const struct module_index *x, const struct trace_module *m, size_t *nodes)
{
	size_t n = 0, l, r;
	if (m->lo >= m->hi)
		return 0;
	l = lower_bound(x->bounds, x->n_bounds, m->lo) + x->leaves;
	r = lower_bound(x->bounds, x->n_bounds, m->hi) + x->leaves;
	for (; l < r; l >>= 1, r >>= 1) {
		if (l & 1)
			nodes[n++] = l++;
		if (r & 1)
			nodes[n++] = --r;
	}
	return n;
}

static uint32_t dsu_find(uint32_t *next, uint32_t i)
{
	uint32_t r = i;
	while (next[r] != r)
		r = next[r];
	while (next[i] != r) {
		uint32_t n = next[i];
		next[i] = r;
		i = n;
	}
	return r;
}

/* One clock's table: module i is alive in [from[i], to[i]).  In each node,
 * the points where one of its modules comes or goes, and for each stretch
 * between two points the lowest index alive there: modules are painted in
 * index order onto the stretches still bare (a union-find skips the painted
 * ones), so each node costs O(k log k) for its k modules. */
static void slices_build(struct module_index *x, const uint64_t *from, const uint64_t *to,
			 struct slice_table *st)
{
	size_t n_nodes = 2 * x->leaves, total = x->start[n_nodes], out = 0, max_k = 0;
	for (size_t k = 1; k < n_nodes; k++)
		if (x->start[k + 1] - x->start[k] > max_k)
			max_k = x->start[k + 1] - x->start[k];
	uint64_t *pts = xmalloc_n(2 * max_k, sizeof(*pts));
	uint32_t *next = xmalloc_n(2 * max_k + 1, sizeof(*next));

	st->start = xmalloc_n(n_nodes + 1, sizeof(*st->start));
	st->at = xmalloc_n(2 * total, sizeof(*st->at));
	st->first = xmalloc_n(2 * total, sizeof(*st->first));
	for (size_t k = 0; k < n_nodes; k++) {
		size_t q = 0;
		st->start[k] = out;
		if (!k)
			continue;
		for (size_t j = x->start[k]; j < x->start[k + 1]; j++) {
			uint32_t i = x->mods[j];
			if (from[i] < to[i]) {
				pts[q++] = from[i];
				pts[q++] = to[i];
			}
		}
		q = sort_unique(pts, q);
		for (size_t j = 0; j <= q; j++)
			next[j] = (uint32_t)j;
		for (size_t j = 0; j < q; j++)
			st->first[out + j] = NONE;
		for (size_t j = x->start[k]; j < x->start[k + 1]; j++) {
			uint32_t i = x->mods[j];
			if (from[i] >= to[i])
				continue;
			size_t s = lower_bound(pts, q, from[i]), e = lower_bound(pts, q, to[i]);
			for (uint32_t v = dsu_find(next, (uint32_t)s); v < e; v = dsu_find(next, v)) {
				st->first[out + v] = i;
				next[v] = v + 1;
			}
		}
		memcpy(st->at + out, pts, q * sizeof(*pts));
		out += q;
	}
	st->start[n_nodes] = out;
	st->at = xrealloc_(st->at, out * sizeof(*st->at));
	st->first = xrealloc_(st->first, out * sizeof(*st->first));
	free(pts);
	free(next);
}

/* the lowest module index of node k alive at time t, or NONE */
static uint32_t slice_first(const struct slice_table *st, size_t k, uint64_t t)
{
	size_t lo = st->start[k], n = st->start[k + 1] - lo;
	size_t i = upper_bound(st->at + lo, n, t);
	return i ? st->first[lo + i - 1] : NONE;
}

struct load_key {
	uint64_t load_ticks;
	uint32_t index;
};

static int cmp_load_key(const void *a, const void *b)
{
	const struct load_key *x = a, *y = b;
	if (x->load_ticks != y->load_ticks)
		return x->load_ticks < y->load_ticks ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void module_index_build(struct trace_process *p)
{
	struct module_index *x = xmalloc_n(1, sizeof(*x));
	size_t n = p->n_modules, n_nodes, *fill, nodes[2 * 64];
	struct load_key *order;
	uint64_t *from, *to;

	module_index_free(p);
	p->mindex = x;
	if (n >= NONE)
		n = NONE - 1;   /* indices are 32 bits: no process holds more modules */
	x->bounds = xmalloc_n(2 * n, sizeof(*x->bounds));
	for (size_t i = 0; i < n; i++)
		if (p->modules[i].lo < p->modules[i].hi) {
			x->bounds[x->n_bounds++] = p->modules[i].lo;
			x->bounds[x->n_bounds++] = p->modules[i].hi;
		}
	x->n_bounds = sort_unique(x->bounds, x->n_bounds);
	x->leaves = 1;
	while (x->leaves + 1 < x->n_bounds)
		x->leaves *= 2;
	n_nodes = 2 * x->leaves;

	/* each module into the nodes that cover its range: count, then fill,
	 * once in index order (mods) and once by load time (by_load) */
	x->start = xmalloc_n(n_nodes + 1, sizeof(*x->start));
	for (size_t i = 0; i < n; i++) {
		size_t c = module_nodes(x, &p->modules[i], nodes);
		for (size_t j = 0; j < c; j++)
			x->start[nodes[j] + 1]++;
	}
	for (size_t k = 0; k < n_nodes; k++)
		x->start[k + 1] += x->start[k];
	x->mods = xmalloc_n(x->start[n_nodes], sizeof(*x->mods));
	x->by_load = xmalloc_n(x->start[n_nodes], sizeof(*x->by_load));
	fill = xmalloc_n(n_nodes, sizeof(*fill));
	order = xmalloc_n(n, sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = (struct load_key){ p->modules[i].load_ticks, (uint32_t)i };
	for (int pass = 0; pass < 2; pass++) {
		uint32_t *dst = pass ? x->by_load : x->mods;
		if (pass && n > 1)
			qsort(order, n, sizeof(*order), cmp_load_key);
		memcpy(fill, x->start, n_nodes * sizeof(*fill));
		for (size_t j = 0; j < n; j++) {
			size_t c = module_nodes(x, &p->modules[order[j].index], nodes);
			for (size_t i = 0; i < c; i++)
				dst[fill[nodes[i]]++] = order[j].index;
		}
	}
	free(fill);
	free(order);

	/* alive in ticks: from the load (from the start for a module the
	 * start-up scan found) to the unload; in ns: load_ns to unload_ns */
	from = xmalloc_n(n, sizeof(*from));
	to = xmalloc_n(n, sizeof(*to));
	for (size_t i = 0; i < n; i++) {
		from[i] = p->modules[i].at_start ? 0 : p->modules[i].load_ticks;
		to[i] = p->modules[i].unload_ticks;
	}
	slices_build(x, from, to, &x->ticks);
	for (size_t i = 0; i < n; i++) {
		from[i] = p->modules[i].load_ns;
		to[i] = p->modules[i].unload_ns;
	}
	slices_build(x, from, to, &x->ns);
	free(from);
	free(to);
}

void module_index_free(struct trace_process *p)
{
	struct module_index *x = p->mindex;
	if (!x)
		return;
	free(x->bounds);
	free(x->start);
	free(x->mods);
	free(x->by_load);
	free(x->ticks.start);
	free(x->ticks.at);
	free(x->ticks.first);
	free(x->ns.start);
	free(x->ns.at);
	free(x->ns.first);
	free(x);
	p->mindex = NULL;
}

/* the leaf of addr's segment, or 0 outside every module */
static size_t leaf_of(const struct module_index *x, uint64_t addr)
{
	size_t j;
	if (x->n_bounds < 2 || addr < x->bounds[0] || addr >= x->bounds[x->n_bounds - 1])
		return 0;
	j = upper_bound(x->bounds, x->n_bounds, addr) - 1;
	return x->leaves + j;
}

/* Along addr's path: the lowest module index alive at t on one clock, or
 * NONE; *last: the highest index covering addr, or NONE. */
static uint32_t path_alive(const struct module_index *x, const struct slice_table *st, uint64_t addr,
			   uint64_t t, uint32_t *last)
{
	uint32_t alive = NONE;
	*last = NONE;
	for (size_t k = leaf_of(x, addr); k; k >>= 1) {
		size_t hi = x->start[k + 1];
		if (x->start[k] == hi)
			continue;
		uint32_t a = slice_first(st, k, t);
		if (a < alive)
			alive = a;
		if (*last == NONE || x->mods[hi - 1] > *last)
			*last = x->mods[hi - 1];
	}
	return alive;
}

/* The module of process p that held addr at `ticks`.  A function that runs
 * before its module's load record (a constructor inside dlopen) is matched
 * with the next load that covers it; failing that, the last module recorded
 * there. */
const struct trace_module *module_at(const struct trace_process *p, uint64_t addr, uint64_t ticks)
{
	const struct module_index *x = p->mindex;
	uint32_t last, later = NONE, alive;

	if (!x)
		return NULL;
	alive = path_alive(x, &x->ticks, addr, ticks, &last);
	if (alive != NONE)
		return &p->modules[alive];
	/* none alive: the first to load after ticks, by (load time, index) */
	for (size_t k = leaf_of(x, addr); k; k >>= 1) {
		size_t lo = x->start[k], hi = x->start[k + 1];
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (p->modules[x->by_load[mid]].load_ticks <= ticks)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < x->start[k + 1]) {
			uint32_t c = x->by_load[lo];
			const struct trace_module *mc = &p->modules[c];
			if (later == NONE || mc->load_ticks < p->modules[later].load_ticks ||
			    (mc->load_ticks == p->modules[later].load_ticks && c < later))
				later = c;
		}
	}
	if (later != NONE)
		return &p->modules[later];
	return last != NONE ? &p->modules[last] : NULL;
}

const struct trace_module *trace_module_at(const struct trace_process *p, uint64_t addr, uint64_t ns)
{
	const struct module_index *x = p->mindex;
	uint32_t last, alive;

	if (!x)
		return NULL;
	alive = path_alive(x, &x->ns, addr, ns, &last);
	if (alive != NONE)
		return &p->modules[alive];
	/* a constructor before its load record */
	return last != NONE && p->modules[last].unload_ns == UINT64_MAX ? &p->modules[last] : NULL;
}
