/*
 * reader-walk.c - the walks over a trace's events: thread after thread, or
 * merged in time order across every thread of every process (a min-heap
 * of cursors, each handing out runs of its decoded batch).  Views see
 * batches (trace_walk_batch) or one event at a time (trace_walk).
 */
#include <stdlib.h>
#include <string.h>
#include "format/reader-internal.h"

static void walk_reset(struct trace *t)
{
	for (size_t i = 0; i < t->n_procs; i++) {
		t->procs[i].damaged_bytes = 0;
		for (size_t k = 0; k < t->procs[i].n_threads; k++)
			thread_release(&t->procs[i].threads[k]);   /* a walk stopped early holds some */
	}
	t->end_ns = 0;
	t->chunks_walked = 0;
}

static int stream_end(struct cursor *c, trace_batch_fn fn, void *ctx)
{
	struct trace_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = TRACE_STREAM_END;
	ev.thread = c->th;
	ev.ns = c->th->last_ns;
	return fn(ctx, &ev, 1);
}

static int walk_by_thread(struct trace *t, trace_batch_fn fn, void *ctx)
{
	struct cursor *c = malloc(sizeof(*c));
	struct trace_event *buf = batch_alloc(TRACE_BATCH);
	struct walk_cache *wc = calloc(1, sizeof(*wc));
	int ret = 0;
	if (!c || !buf || !wc)
		exit(1);
	for (size_t i = 0; i < t->n_procs && !ret; i++) {
		struct trace_process *p = &t->procs[i];
		uint64_t *changes;
		size_t n_changes, n;
		process_changes(p, &changes, &n_changes);
		for (size_t k = 0; k < p->n_threads && !ret; k++) {
			if (!p->threads[k].selected)
				continue;
			cursor_init(c, &p->threads[k], changes, n_changes, wc, buf, TRACE_BATCH);
			while ((n = cursor_fill(c))) {
				if (c->max_ns > t->end_ns)
					t->end_ns = c->max_ns;
				if ((ret = fn(ctx, buf, n)))
					break;
			}
			if (!ret)
				ret = stream_end(c, fn, ctx);
			thread_release(c->th);    /* its last chunk, and one its views read again (or stopped early) */
		}
		free(changes);
	}
	free(wc);
	free(buf);
	free(c);
	return ret;
}

static inline uint64_t head_ns(const struct cursor *c)
{
	return c->buf[c->i].ns;
}

/* min-heap of cursors by their next event's time (kept beside each) */
struct heap_ent {
	uint64_t ns;
	struct cursor *c;
};

static void heap_down(struct heap_ent *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && h[l].ns < h[m].ns)
			m = l;
		if (r < n && h[r].ns < h[m].ns)
			m = r;
		if (m == i)
			return;
		struct heap_ent x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

#define BY_TIME_BATCH0 16

/* Merged in time order.  The thread at the heap's top hands out a run of
 * events at once: every event up to the smaller of its children's next
 * times.  That is the order event-by-event sifting gives (a tie keeps the
 * top where it is), so the merge does not depend on the batch size. */
static int walk_by_time(struct trace *t, trace_batch_fn fn, void *ctx)
{
	size_t n = 0, cap = 0;
	struct heap_ent *heap = NULL;
	uint64_t **changes = calloc(t->n_procs + 1, sizeof(*changes));
	struct walk_cache *wc = calloc(1, sizeof(*wc));
	int ret = 0;
	if (!changes || !wc)
		exit(1);
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		size_t n_changes;
		process_changes(p, &changes[i], &n_changes);
		for (size_t k = 0; k < p->n_threads; k++) {
			if (!p->threads[k].selected)
				continue;
			struct cursor *c = malloc(sizeof(*c));
			struct trace_event *buf = batch_alloc(BY_TIME_BATCH0);
			if (!c || !buf)
				exit(1);
			cursor_init(c, &p->threads[k], changes[i], n_changes, wc, buf, BY_TIME_BATCH0);
			if (!cursor_fill(c)) {
				thread_release(c->th);
				free(buf);
				free(c);
				continue;
			}
			thread_park(c->th);
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				heap = xrealloc_(heap, cap * sizeof(*heap));
			}
			heap[n++] = (struct heap_ent){ head_ns(c), c };
		}
	}
	for (size_t i = n / 2; i-- > 0;)
		heap_down(heap, n, i);
	while (n) {
		struct cursor *c = heap[0].c;
		uint64_t limit = UINT64_MAX;
		if (n > 1)
			limit = heap[1].ns;
		if (n > 2 && heap[2].ns < limit)
			limit = heap[2].ns;
		size_t first = c->i, j = c->i + 1;   /* the head goes out whatever the limit */
		uint64_t hi = c->buf[first].ns;
		for (; j < c->n && c->buf[j].ns <= limit; j++)
			hi = c->buf[j].ns > hi ? c->buf[j].ns : hi;
		if (hi > t->end_ns)
			t->end_ns = hi;
		if ((ret = fn(ctx, c->buf + c->i, j - c->i)))
			break;
		c->i = j;
		/* the events of a chunk the thread left are out (its batch ends
		 * with the first of the next chunk): its pages go now, not when
		 * the thread's turn comes again (hundreds of threads each held one) */
		if (c->i + 1 >= c->n && c->th->left_lo)
			thread_release(c->th);
		/* a thread that ran alone through its whole batch gets a bigger
		 * one; threads that interleave finely keep small ones (memory
		 * grows with the number of threads) */
		if (c->i == c->n && j - first == c->n && c->cap < TRACE_BATCH) {
			c->cap *= 2;
			free(c->buf);   /* all handed out: nothing to copy */
			c->buf = batch_alloc(c->cap);
			buffer_prepare(c);
		}
		if (c->i == c->n && !cursor_fill(c)) {
			ret = stream_end(c, fn, ctx);
			thread_release(c->th);
			free(c->buf);
			free(c);
			heap[0] = heap[--n];
			if (ret)
				break;
		} else {
			heap[0].ns = head_ns(c);
		}
		heap_down(heap, n, 0);
	}
	for (size_t i = 0; i < n; i++) {     /* a walk stopped early */
		thread_release(heap[i].c->th);
		free(heap[i].c->buf);
		free(heap[i].c);
	}
	free(heap);
	for (size_t i = 0; i < t->n_procs; i++)
		free(changes[i]);
	free(changes);
	free(wc);
	return ret;
}

void trace_rewind(struct trace *t)
{
	walk_reset(t);
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct trace_thread *th = &t->procs[i].threads[k];
			memcpy(th->name, th->open_name, sizeof(th->name));
			th->events = th->lost = 0;
			th->first_ns = th->last_ns = 0;
			th->ended = 0;
			th->live_lo = th->live_hi = NULL;
		}
}

int trace_walk_batch(struct trace *t, int by_time, trace_batch_fn fn, void *ctx)
{
	walk_reset(t);
	return by_time ? walk_by_time(t, fn, ctx) : walk_by_thread(t, fn, ctx);
}

struct event_walk {
	trace_event_fn fn;
	void *ctx;
};

/* trace_walk over batches: one call per event, with th->last_ns at the
 * event being handed out as it was when the reader decoded one at a time */
static int each_event(void *ctx, const struct trace_event *ev, size_t n)
{
	struct event_walk *w = ctx;
	struct trace_thread *th = ev->thread;
	uint64_t last = th->last_ns;
	for (size_t i = 0; i < n; i++) {
		int ret;
		th->last_ns = ev[i].kind == TRACE_STREAM_END ? last : ev[i].ns;
		if ((ret = w->fn(w->ctx, &ev[i])))
			return ret;
	}
	th->last_ns = last;
	return 0;
}

int trace_walk(struct trace *t, int by_time, trace_event_fn fn, void *ctx)
{
	struct event_walk w = { fn, ctx };
	return trace_walk_batch(t, by_time, each_event, &w);
}

size_t trace_select_tids(struct trace *t, const uint32_t *tids, size_t n)
{
	size_t matched = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct trace_thread *th = &t->procs[i].threads[k];
			th->selected = 0;
			for (size_t j = 0; j < n; j++)
				if (th->tid == tids[j])
					th->selected = 1;
			matched += th->selected;
		}
	return matched;
}

uint64_t trace_total_events(const struct trace *t)
{
	uint64_t n = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++)
			n += t->procs[i].threads[k].events;
	return n;
}
