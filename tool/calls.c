/*
 * calls.c - the call layer between the reader and the views: it keeps a
 * stack per thread, matches each exit with its entry, and hands views whole
 * calls (begin, end with duration) with the -F/-N/-D filters applied.
 *
 * Exits are matched by address.  An exit whose function is deeper in the
 * stack closes the frames above it as unwound (longjmp skipped their
 * exits); frames still open when a thread's stream ends are closed as
 * truncated (a crash, exit() from a nested call).  An exit with no entry at
 * all (a forked child returning through its parent's frames) is an orphan.
 *
 * Coroutines: a thread has one frame stack per machine stack (SWITCH
 * events).  A fiber's stack that another thread took over (a STACK_MOVED
 * meta record) ends the calls left open on it on the first thread, "moved",
 * at the time of the move, and brings the second thread that many calls
 * owed: their exits there are orphans, "entered on another thread", at the
 * depths they had.  Merged in time order, the first thread's calls end when
 * the second switches to the stack, before its returns; thread by thread,
 * at the first thread's first event after the move.
 *
 * --since/--until keep the calls that overlap the window (start <= until
 * and end >= since), with their real times (not clipped).  A thread's
 * frames are held back until its first event at or after `since`: the
 * frames still open then are begun (in stack order, with their own start
 * times), the ones that ended before are never shown; entries after
 * `until` are not begun.  A frame's end goes out only if its begin did.
 *
 * -T triggers: trace_on/trace_off switch a thread's calls on and off from
 * FUNC's entry (each thread starts off when some trigger has trace_on),
 * finish switches them off for good when FUNC returns, depth=N limits the
 * display depth below FUNC, backtrace hands the view FUNC's open callers.
 * time=DUR needs FUNC's duration before FUNC's callees are shown: a first
 * walk notes the FUNC calls shorter than DUR (their start times, per
 * thread), the real walk leaves those out like -N.
 */
#include <stdlib.h>
#include <string.h>
#include "format/ghosts.h"
#include "tool/framestack.h"
#include "tool/tool.h"

struct tstack {
	struct fstack fs;    /* open frames (framestack.c: bounded memory at any depth) */
	int base;            /* depth of the frames entered before this stream began */
	int after_gap;       /* chunks were missing (TRACE_GAP): orphans since are the gap's */
	int partial;         /* the thread's events before some point are not here (a ring's history, a gap) */
	int fresh;           /* where its frames begin is not known: set at the next switch to it (1: a
			      * stack new to the stream; 2: one whose frames it lost track of) */
	int pre;             /* calls open on it that this stream did not see entered (a ring's history,
			      * a gap), as the trace counted them: their exits are this stack's */
	int next_pre;        /* ...of the stack the next SWITCH names (with next_base) */
	size_t inh_returned; /* a forked child: its inherited calls that returned (orphan_why) */
	int reached;         /* the thread's events have reached --since */
	int forked;          /* the frames inherited at a fork were looked at */
	size_t decided;      /* -t: frames below this index have lasted min_ns (or were never waiting) */
	size_t c_done;       /* -C: no frame below this index waits to learn whether it leads to a -C function */
	int off;             /* -T trace_off (or waiting for a trace_on): calls are not shown */
	int finished;        /* -T finish: off for good */
	struct short_list *shorts;   /* time=: this thread's short calls (found once: shorts_known) */
	int shorts_known;
	uint64_t stack;      /* coroutines: the machine stack these frames are on (0: the thread's own) */
	int owed;            /* fibers: calls open on it that another thread entered, whose returns come here */
	struct ghosts gh;    /* calls the runtime still counts open that were closed here (format/ghosts.h) */
	struct tstack *parked;   /* the frames of the other machine stacks (fs, base, decided, stack, owed, gh) */
	int next_base;       /* >= 0: the base of the stack the next SWITCH names (a chunk that began on a
			      * coroutine's stack, where this stream starts or after a gap: its header
			      * says how many of the calls open lie under that stack) */
	size_t n_parked;
	size_t next_out, next_in;   /* fibers: the thread's moves (trace_stack_move) not applied yet */
};

struct calls_walk {
	struct view *v;
	const struct calls_ops *ops;
	void *ctx;
	int all;
	int filtering;       /* -F, -N, -H, -C or -D given */
	int callers;         /* -C given */
	int triggers;        /* -T given (other than filter, notrace, hide) */
	int start_off;       /* some -T has trace_on: each thread starts off */
	int collect;         /* the first walk for time= triggers: note the short calls */
	uint64_t since, until;
	uint64_t min;        /* -t */
	int by_time;         /* threads merged in time order */
	size_t kept_bytes;   /* kept_stack copies held by frames */
};

/* time= triggers: the start times of the FUNC calls that were too short, per thread */
struct short_list {
	struct trace_thread *th;
	uint64_t *starts;        /* sorted once the first walk is done */
	size_t n, cap;
};
struct trigger_pass {
	struct short_list *lists;
	size_t n;
};

static struct short_list *short_list_of(struct trigger_pass *p, struct trace_thread *th, int add)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->lists[i].th == th)
			return &p->lists[i];
	if (!add)
		return NULL;
	p->lists = xrealloc(p->lists, (p->n + 1) * sizeof(*p->lists));
	memset(&p->lists[p->n], 0, sizeof(p->lists[0]));
	p->lists[p->n].th = th;
	return &p->lists[p->n++];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int is_short_call(struct view *v, struct trace_thread *th, struct tstack *s, uint64_t start)
{
	if (!s->shorts_known) {
		s->shorts = v->short_calls ? short_list_of(v->short_calls, th, 0) : NULL;
		s->shorts_known = 1;
	}
	struct short_list *l = s->shorts;
	size_t lo = 0, hi = l ? l->n : 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->starts[mid] < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return l && lo < l->n && l->starts[lo] == start;
}

int calls_inherited_shown(struct trace_thread *th, size_t i)
{
	struct tstack *s = th->view_data;
	if (!s || !s->forked)
		return 1;       /* (not filtering: the walk keeps no inherited frames) */
	if (i >= s->fs.n || !fs_at(&s->fs, i)->inherited)
		return 0;       /* returned already */
	return fs_at(&s->fs, i)->shown;
}

/* whether the call site of entry ev lies in the code of function func (a
 * recursive call, not a copy of the function inlined into itself, whose
 * hook gets the call site of the copy it was inlined into) */
static int site_in_func(struct view *v, const struct trace_event *ev, uint32_t func)
{
	const struct trace_func *tf = &v->trace->funcs[func];
	struct sym_func sf;
	return ev->callsite_file == tf->file && ev->callsite_vaddr &&
	       !view_addr_sym(v, ev->callsite_file, ev->callsite_vaddr - 1, &sf) && sf.start == tf->vaddr;
}

/* the inline chain of a landing pad, asked once per pad (a program that
 * throws often lands in the same few) */
#define LANDING_CACHE 256
struct landing_chain {
	uint32_t file;
	uint64_t vaddr;          /* 0: empty */
	size_t n;
	const char *names[8];
};

static size_t landing_chain(struct view *v, uint32_t file, uint64_t vaddr, const char *const **names)
{
	if (!v->landing)
		v->landing = xcalloc(LANDING_CACHE, sizeof(*v->landing));
	struct landing_chain *c = &v->landing[(vaddr ^ (uint64_t)file << 7) % LANDING_CACHE];
	if (c->vaddr != vaddr || c->file != file) {
		c->file = file;
		c->vaddr = vaddr;
		c->n = view_inline_names(v, file, vaddr, c->names, 8);
	}
	*names = c->names;
	return c->n;
}

size_t calls_landing_kept(struct view *v, const struct trace_event *ev, const uint32_t *funcs, size_t n)
{
	const char *const *names;
	size_t k = 0, chain;
	/* gcc calls the exit hook of every frame an exception unwinds, inlined
	 * ones too: a gcc-built call still open above the landing frame is
	 * inlined into it, and its exit (or catch) is still to come */
	while (k < n && view_built_by_gcc(v, funcs[k]))
		k++;
	if (k || !n)
		return k;
	if (!ev->callsite || !ev->callsite_vaddr ||
	    !(chain = landing_chain(v, ev->callsite_file, ev->callsite_vaddr, &names)))
		return 0;
	/* the chain's functions, outermost first, against the calls open above
	 * the landing frame; one with no call there (not instrumented, or
	 * left out at record time) is passed over */
	for (size_t j = 0; j < chain && k < n; j++) {
		const struct trace_func *tf = &v->trace->funcs[funcs[k]];
		struct sym_func sf;
		if (!view_addr_sym(v, tf->file, tf->vaddr, &sf) && !strcmp(sf.mangled ? sf.mangled : sf.name, names[j]))
			k++;
	}
	return k;
}

const char *call_end_text(const struct trace_thread *th, enum call_end how)
{
	switch (how) {
	case CALL_RETURN: return NULL;
	case CALL_UNWOUND: return "unwound";
	case CALL_MOVED: return "moved to another thread";
	case CALL_GAP: return "trace data missing";
	case CALL_OFF: return "recording was off";
	case CALL_TRUNCATED: break;
	}
	return th->proc->exec_replaced ? "exec" : "trace ended";
}

static void stacks_known(struct tstack *s, uint64_t below);

static struct tstack *stack_of(struct calls_walk *w, struct trace_thread *th)
{
	struct tstack *s = th->view_data;
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		fs_init(&s->fs);
		s->base = th->start_depth > 0 ? th->start_depth : 0;
		s->next_base = -1;
		if (th->start_below && !th->fork_tid)
			stacks_known(s, th->start_below);
		/* its first chunks missing (a ring's history starts there) */
		s->after_gap = th->first_seq > 0 && !(th->proc->hdr.flags & FNT_FLAG_RING);
		s->partial = th->first_seq > 0;
		s->off = w->start_off;
		th->view_data = s;
	}
	return s;
}

/* Coroutines: the thread moved to machine stack `id`.  The current frames
 * are parked (a suspended coroutine's stay open); the other stack's come
 * back, or a new stack starts its frames at the depth of the switch. */
static void suspend_all(struct calls_walk *w, struct trace_thread *th, struct tstack *s, int resumed, uint64_t ns);

/* A chunk of a thread that switched machine stacks begins with a SWITCH
 * to the stack it is on, and its header's `below` says how many calls are
 * open on that stack and, on a coroutine's, how many on the thread's own
 * under it (format.h): where the frames of both begin, for a reader that
 * has no earlier record of them (the stream starts there, or after a
 * gap).  The thread's own stack now; the one the SWITCH names, then
 * (stack_base_due). */
static void stacks_known(struct tstack *s, uint64_t below)
{
	int on = (int)(below & 0xffffffff) - 1, under = (int)(below >> 32) - 1;
	/* every stack afresh (after a gap: their frames ended there), its
	 * frames placed where the thread next switches to it (the switch
	 * says where they begin: switch_stack) */
	s->fresh = 2;
	for (size_t k = 0; k < s->n_parked; k++)
		s->parked[k].fresh = 2;
	s->next_base = (under > 0 ? under : 0) + on;
	s->next_pre = on;
}

/* the stack the thread is on after the SWITCH that begins a chunk: where
 * its frames begin, when the reader has no earlier record of them */
static void stack_base_due(struct tstack *s)
{
	if (s->next_base >= 0 && !s->fs.n) {
		s->base = s->next_base;
		s->pre = s->next_pre;
	}
	s->next_base = -1;
	s->fresh = 0;
}

/* open, under: 1 + the calls open on the stack switched to, and 1 + those
 * under it, when the trace says (format version 3), else 0 */
static void switch_stack(struct calls_walk *w, struct trace_thread *th, struct tstack *s, uint64_t id, uint64_t ns,
			 uint64_t open, uint64_t under)
{
	if (id == s->stack) {
		stack_base_due(s);
		return;
	}
	suspend_all(w, th, s, 0, ns);
	struct frame *top = fs_top(&s->fs);
	int depth = top ? top->depth + (top->shown ? 1 : 0) : s->base;
	struct tstack *slot = NULL;
	for (size_t i = 0; i < s->n_parked; i++)
		if (s->parked[i].stack == id)
			slot = &s->parked[i];
	if (!slot) {
		s->parked = xrealloc(s->parked, (s->n_parked + 1) * sizeof(*s->parked));
		slot = &s->parked[s->n_parked++];
		memset(slot, 0, sizeof(*slot));
		fs_init(&slot->fs);
		slot->stack = id;
		slot->fresh = 1;
	}
	if (!slot->fs.n && !slot->fresh && !slot->owed && !slot->pre)
		slot->fresh = 1;        /* nothing open on it: entered anew (a handler's sigaltstack, at each signal) */
	if (slot->fresh && !slot->fs.n) {
		/* a stack new to this stream: its frames begin at the switch;
		 * or, in a stream that lacks the thread's earlier events (a
		 * ring's history, a gap), or on a stack whose frames it lost
		 * track of, where the trace says: the calls open on it that
		 * this stream did not see entered, over those under it */
		slot->base = depth;
		slot->pre = 0;
		if ((s->partial || slot->fresh == 2) && open && under && open <= (1u << 20) && under <= (1u << 20)) {
			slot->base = (int)(under - 1 + open - 1);
			slot->pre = (int)(open - 1);
		}
	}
	slot->fresh = 0;
	struct tstack cur = *s;
	s->fs = slot->fs;
	s->base = slot->base;
	s->decided = slot->decided;
	s->owed = slot->owed;
	s->gh = slot->gh;
	s->stack = id;
	s->fresh = 0;
	s->pre = slot->pre;
	slot->fs = cur.fs;
	slot->base = cur.base;
	slot->decided = cur.decided;
	slot->owed = cur.owed;
	slot->gh = cur.gh;
	slot->stack = cur.stack;
	slot->fresh = cur.fresh;
	slot->pre = cur.pre;
	stack_base_due(s);
	suspend_all(w, th, s, 1, ns);
	if (w->ops->switched)
		w->ops->switched(w->ctx, th, cur.stack, id);
}

/* the view's suspend: each begun frame of the stack parked (innermost
 * first), or taken out (outermost first) */
static void suspend_all(struct calls_walk *w, struct trace_thread *th, struct tstack *s, int resumed, uint64_t ns)
{
	if (!w->ops->suspend)
		return;
	for (size_t k = 0; k < s->fs.n; k++) {
		const struct frame *f = fs_at(&s->fs, resumed ? k : s->fs.n - 1 - k);
		if (f->begun)
			w->ops->suspend(w->ctx, th, f, resumed, ns);
	}
}

/* an exit with no frame on this stack: a coroutine returned to its
 * uc_link inside libc, which wrote no switch, or a handler's jump off its
 * signal stack; the parked stack whose innermost frame it closes is where
 * the thread is now.  From a stack named by a hand-written switch (bit 0
 * set, below 2^55) not to another such stack: a fiber another thread left
 * unseen and this one resumed has exits of calls entered before it came
 * there, and taken for a return of the innermost call of another fiber
 * suspended in the same function, it closed that fiber's calls
 * (stack_hand_pair) */
static int find_parked(struct calls_walk *w, struct trace_thread *th, struct tstack *s, uint64_t addr, uint64_t ns)
{
	for (size_t i = 0; i < s->n_parked; i++)
		if (s->parked[i].fs.n && fs_top(&s->parked[i].fs)->addr == addr &&
		    !stack_hand_pair(s->stack, s->parked[i].stack)) {
			switch_stack(w, th, s, s->parked[i].stack, ns, 0, 0);
			return 1;
		}
	return 0;
}

/* A view's callback may read a frame's arguments (args.c notes what it
 * read): clear the note before, and after, hand back to the reader the
 * payload it read, whose chunk the walk may have left */
static const uint8_t *args_watch(const struct frame *f)
{
	if (f->args)
		args_read_clear();
	return f->args;
}

static void args_hand_back(struct trace_thread *th, const uint8_t *args, uint32_t len)
{
	if (args && args_last_read() == args)
		trace_payload_done(th, args, len);
}

/* A stack the trace holds (a backtrace trigger's at record time,
 * fnt_capture_stack()) while its innermost open call waits for -C or -t:
 * a copy, handed to the view when that call is begun, as a recording with
 * the same filters has it; freed with the call if it never is.  At most
 * KEPT_MAX bytes of them at once (a deep recursion whose every level
 * waits): past that such a stack is dropped, as before. */
#define KEPT_MAX (16u << 20)
struct kept_stack {
	struct kept_stack *next;
	size_t size;
	struct trace_event ev;
	struct trace_body body;
	uint64_t data[];         /* n addresses, n vaddrs, n files */
};

static void keep_stack(struct calls_walk *w, struct frame *f, const struct trace_event *ev)
{
	size_t n = ev->count < FNT_STACK_MAX ? ev->count : FNT_STACK_MAX;
	size_t size = sizeof(struct kept_stack) + n * (2 * sizeof(uint64_t) + sizeof(uint32_t));
	if (w->kept_bytes + size > KEPT_MAX)
		return;
	struct kept_stack *k = xmalloc(size), **tail = &f->kept;
	uint64_t *stack = k->data, *vaddr = stack + n;
	uint32_t *file = (uint32_t *)(vaddr + n);
	k->next = NULL;
	k->size = size;
	k->ev = *ev;
	k->ev.count = n;
	memcpy(stack, ev->body->stack, n * sizeof(*stack));
	memcpy(vaddr, ev->body->stack_vaddr, n * sizeof(*vaddr));
	memcpy(file, ev->body->stack_file, n * sizeof(*file));
	k->body = (struct trace_body){ NULL, 0, stack, file, vaddr };
	k->ev.body = &k->body;
	while (*tail)
		tail = &(*tail)->next;
	*tail = k;
	w->kept_bytes += size;
}

static void drop_kept(struct calls_walk *w, struct frame *f)
{
	while (f->kept) {
		struct kept_stack *k = f->kept;
		f->kept = k->next;
		w->kept_bytes -= k->size;
		free(k);
	}
}

/* the frames left open (live's polls): their copies */
static void drop_all_kept(struct calls_walk *w, struct tstack *s)
{
	for (size_t j = 0; j <= s->n_parked; j++) {
		struct pstack *fs = j < s->n_parked ? &s->parked[j].fs : &s->fs;
		for (size_t i = 0; i < fs->n; i++)
			drop_kept(w, fs_at(fs, i));
	}
}

/* the frame at index i was just begun: the stacks it kept, in order */
static void hand_kept(struct calls_walk *w, struct trace_thread *th, struct tstack *s, size_t i)
{
	struct frame *f = fs_at(&s->fs, i);
	int depth = f->depth + (f->shown ? 1 : 0);
	for (struct kept_stack *k = f->kept; k; k = k->next)
		w->ops->stack(w->ctx, th, &k->ev, NULL, k->ev.count, k->ev.ns, depth);
	drop_kept(w, f);
}

/* how many frames up to the innermost open call of addr (0: none open) */
static size_t open_upto(struct tstack *s, uint64_t addr)
{
	size_t i = s->fs.n;
	while (i > 0 && fs_at(&s->fs, i - 1)->addr != addr)
		i--;
	return i;
}

static void pop(struct calls_walk *w, struct trace_thread *th, struct tstack *s, uint64_t ns, enum call_end how)
{
	struct frame *f = fs_top(&s->fs);
	fs_pop(&s->fs);          /* f stays valid until the next push */
	if (__builtin_expect(f->kept != NULL, 0))
		drop_kept(w, f);
	uint64_t dur = ns > f->start_ns ? ns - f->start_ns : 0;
	if (f->trig & (TRIG_FINISH | TRIG_TIME)) {
		const struct trigger *g = view_trigger(w->v, f->func);
		if (w->collect && (g->flags & TRIG_TIME) && dur < g->time_ns) {
			struct short_list *l = short_list_of(w->v->short_calls, th, 1);
			if (l->n == l->cap) {
				l->cap = l->cap ? l->cap * 2 : 64;
				l->starts = xrealloc(l->starts, l->cap * sizeof(*l->starts));
			}
			l->starts[l->n++] = f->start_ns;
		}
		if (g->flags & TRIG_FINISH)
			s->off = s->finished = 1;
	}
	if (s->decided > s->fs.n)
		s->decided = s->fs.n;
	if (s->c_done > s->fs.n)
		s->c_done = s->fs.n;
	if (f->wait_t)           /* -t: too short; its time stays its caller's own */
		return;
	if (s->fs.n)
		fs_top(&s->fs)->child_ns += dur;
	if (f->begun && w->ops->end) {
		const uint8_t *args = args_watch(f);
		w->ops->end(w->ctx, th, f, ns, how);
		/* read at the exit (chrome; replay's one-line leaves): its page
		 * again.  Only then: a syscall for each call whose entry lies in a
		 * chunk already left was 54,328 madvise calls, 8 % of a replay
		 * that printed those calls' arguments at their entry */
		args_hand_back(th, args, f->args_len);
	}
}

/* f is not shown only because -H hides it (its callees show one level
 * up) */
static int h_hidden(struct calls_walk *w, const struct tstack *s, const struct frame *f)
{
	return !f->shown && !f->begun && f->in_filter && !f->hidden && !f->in_c && !s->off &&
	       !(f->dlim && f->depth >= f->dlim) &&
	       (!w->v->opts->max_depth || f->depth < w->v->opts->max_depth) &&
	       (view_filter_match(w->v, f->func) & 4);
}

/* A backtrace trigger's stack: the frames open at the entry of the call at
 * index i, that call first (at read time they are the stack) */
static void trigger_stack_(struct calls_walk *w, struct trace_thread *th, struct tstack *s, size_t i)
{
	const struct frame *f = fs_at(&s->fs, i);
	uint32_t funcs[FNT_STACK_MAX];
	size_t n = 0;
	if (!f->begun || !w->ops->stack)
		return;
	for (size_t k = i + 1; k > 0 && n < FNT_STACK_MAX; k--)
		funcs[n++] = fs_at(&s->fs, k - 1)->func;
	w->ops->stack(w->ctx, th, NULL, funcs, n, f->start_ns, f->depth + 1);
}

/* (the test inline: at every entry, and hardly ever a backtrace trigger) */
static inline void trigger_stack(struct calls_walk *w, struct trace_thread *th, struct tstack *s, size_t i)
{
	if (fs_at(&s->fs, i)->trig & TRIG_BACKTRACE)
		trigger_stack_(w, th, s, i);
}

/* The frame at index i, begun after its entry (-C, -t, --since): its
 * arguments may lie in a chunk the walk has left, which the view's read
 * maps again; hand them back (trace_payload_done), as pop() does for the
 * ones read at the exit.  By -C and -t (stack) with its backtrace
 * trigger's stack, as a recording with the same filters has it right
 * after the entry (not by --since: that recording's stack lies before
 * it). */
static void begin_late(struct calls_walk *w, struct trace_thread *th, struct tstack *s, size_t i, int stack)
{
	struct frame *f = fs_at(&s->fs, i);
	if (!w->ops->begin)
		return;
	const uint8_t *args = args_watch(f);
	w->ops->begin(w->ctx, th, f);
	args_hand_back(th, args, f->args_len);
	if (stack) {
		trigger_stack(w, th, s, i);
		if (fs_at(&s->fs, i)->kept)
			hand_kept(w, th, s, i);
	}
}

/* the thread reached --since: begin the frames still open */
static void reach(struct calls_walk *w, struct trace_thread *th, struct tstack *s)
{
	s->reached = 1;
	for (size_t i = 0; i < s->fs.n; i++) {
		struct frame *f = fs_at(&s->fs, i);
		if (!f->begun && !f->wait_t && !f->wait_c && !f->inherited && (f->shown || w->all) &&
		    f->start_ns <= w->until) {
			f->begun = 1;
			begin_late(w, th, s, i, 0);
		}
	}
}

/* -t: begin the waiting frames that have lasted min_ns by `now`, outer
 * first (a frame starts no earlier than its caller) */
static void promote(struct calls_walk *w, struct trace_thread *th, struct tstack *s, uint64_t now)
{
	while (s->decided < s->fs.n) {
		struct frame *f = fs_at(&s->fs, s->decided);
		if (f->wait_t) {
			if (now - f->start_ns < w->min || now < f->start_ns)
				return;
			f->wait_t = 0;
			/* (still waiting for -C: begun when it leads to a match,
			 * caller_filter; begun here too, it showed twice, and a call
			 * that led to none showed) */
			if (!f->wait_c) {
				f->begun = 1;
				begin_late(w, th, s, s->decided, 1);
			}
		}
		s->decided++;
	}
}

/* Fibers: another thread took stack m->stack over (FNT_META_STACK_MOVED).
 * The calls this thread left open on it end here at that time, "moved";
 * their returns are the other thread's. */
static void move_out(struct calls_walk *w, struct trace_thread *th, struct tstack *s,
		     const struct trace_stack_move *m)
{
	uint64_t back = s->stack;
	size_t i = 0;
	while (i < s->n_parked && s->parked[i].stack != m->from_stack)
		i++;
	if (back != m->from_stack && i == s->n_parked)
		return;         /* (not known here) */
	if (w->min)
		promote(w, th, s, m->ns);
	if (!s->reached && m->ns >= w->since)
		reach(w, th, s);
	/* the stack the thread is on in its trace: it left it by a switch
	 * it made no event after (a scheduler that is not traced), and the
	 * thread that resumed it found it by the stack pointer; its SWITCH
	 * away comes at its next event */
	if (back != m->from_stack)
		switch_stack(w, th, s, m->from_stack, m->ns, 0, 0);
	while (s->fs.n)
		pop(w, th, s, m->ns, CALL_MOVED);
	s->owed = 0;
	if (back != m->from_stack)
		switch_stack(w, th, s, back, m->ns, 0, 0);
}

/* the moves away from th up to ns */
static void moves_out_due(struct calls_walk *w, struct trace_thread *th, struct tstack *s, uint64_t ns)
{
	while (s->next_out < th->n_moves_out && th->moves_out[s->next_out]->ns <= ns)
		move_out(w, th, s, th->moves_out[s->next_out++]);
}

/* A switch to stack `id`: if th took it over from another thread, its
 * calls open there (entered on the other thread) are owed to it: their
 * returns come without entries, at the depths they had. */
static void switch_in(struct calls_walk *w, struct trace_thread *th, struct tstack *s, uint64_t id, uint64_t ns)
{
	const struct trace_stack_move *m = NULL;
	struct frame *top = fs_top(&s->fs);
	int depth = top ? top->depth + (top->shown ? 1 : 0) : s->base;
	while (s->next_in < th->n_moves_in && th->moves_in[s->next_in]->ns <= ns) {
		const struct trace_stack_move *c = th->moves_in[s->next_in++];
		if (c->stack == id)
			m = c;  /* (an earlier one whose switch the trace lost is passed over) */
	}
	switch_stack(w, th, s, id, ns, 0, 0);
	if (!m)
		return;
	/* merged in time: the other thread's calls end now, before these
	 * returns (thread by thread, its own walk ends them) */
	if (w->by_time && m->from->view_data)
		moves_out_due(w, m->from, m->from->view_data, m->ns);
	if (!s->fs.n)
		s->base = depth + (int)m->frames;
	s->owed = (int)m->frames;
}

/* the return of a call owed to this stack (switch_in) */
static void owed_exit(struct calls_walk *w, struct trace_thread *th, struct tstack *s,
		      const struct trace_event *ev, int in_range)
{
	while (s->fs.n)         /* (calls of this thread's above it were left) */
		pop(w, th, s, ev->ns, CALL_UNWOUND);
	s->owed--;
	if (s->base > 0)
		s->base--;
	if (w->ops->orphan && !w->filtering && in_range)
		w->ops->orphan(w->ctx, th, ev, s->base, ORPHAN_MOVED);
}

/* every open frame of the thread ended at ns (how): those of its current
 * machine stack, then those of the stacks parked (suspended coroutines),
 * the thread back on its stack after */
static void end_every_stack(struct calls_walk *w, struct trace_thread *th, struct tstack *s, uint64_t ns,
			    enum call_end how)
{
	uint64_t cur = s->stack;
	while (s->fs.n)
		pop(w, th, s, ns, how);
	for (size_t i = 0; i < s->n_parked; i++)
		if (s->parked[i].fs.n) {
			switch_stack(w, th, s, s->parked[i].stack, ns, 0, 0);
			while (s->fs.n)
				pop(w, th, s, ns, how);
		}
	switch_stack(w, th, s, cur, ns, 0, 0);
}

/* How the calls open at a thread's end (at ns; ended: its THREAD_END)
 * ended: unseen when recording was off then, and the thread had not ended
 * before it went off; else the trace ended (or exec replaced the image) */
static enum call_end end_how(const struct trace_thread *th, uint64_t ns, int ended)
{
	uint64_t off;
	if (th->proc->exec_replaced || !trace_recording_off_at_end(th->proc, &off) || (ended && ns < off))
		return CALL_TRUNCATED;
	return CALL_OFF;
}

/* Why an exit has no open call (at the base of the thread's stack): the
 * call was entered while recording was off, when it was off before; but
 * a forked child's calls inherited from its parent (the next of them
 * innermost first, as the reader found them at the fork) were entered
 * before it began, and a flight recorder's before its history, unless
 * recording was switched since that began */
static enum call_orphan orphan_why(struct calls_walk *w, struct trace_thread *th, struct tstack *s,
				   const struct trace_event *ev)
{
	const struct trace_process *p = th->proc;
	if (s->after_gap)
		return ORPHAN_GAP;
	if (th->fork_tid) {
		const struct trace_frame_ref *in;
		size_t n = trace_inherited(w->v->trace, th, &in);
		if (!n)
			return ORPHAN_BEFORE;        /* (the parent's side is not known) */
		if (s->inh_returned < n && in[n - 1 - s->inh_returned].addr == ev->addr) {
			s->inh_returned++;
			return ORPHAN_BEFORE;
		}
	}
	if (!trace_recording_was_off(p, ev->ns))
		return ORPHAN_BEFORE;
	if (th->first_seq && (p->hdr.flags & FNT_FLAG_RING) && !trace_recording_switched_since(p, th->history_ns))
		return ORPHAN_BEFORE;
	return ORPHAN_OFF;
}

static void close_all(struct calls_walk *w, struct trace_thread *th, uint64_t ns, int ended)
{
	struct tstack *s = th->view_data;
	if (!s)
		return;
	moves_out_due(w, th, s, UINT64_MAX);
	if (w->min)
		promote(w, th, s, ns);
	if (!s->reached && ns >= w->since)
		reach(w, th, s);
	end_every_stack(w, th, s, ns, end_how(th, ns, ended));   /* suspended coroutines too, never resumed */
}

/* -C: a call is shown only if it is a -C function or leads to one.  Calls
 * wait (wait_c) until a -C function is entered below them, which begins the
 * waiting callers, outermost first; the callees of a -C function are not
 * shown; calls that never lead to one end unseen.  A -C function inside
 * a -N subtree is no match. */
static void caller_filter(struct calls_walk *w, struct trace_thread *th, struct tstack *s, struct frame *f,
			  const struct frame *parent, int off)
{
	if (parent && parent->in_c) {
		f->in_c = 1;
		f->shown = f->begun = f->wait_t = 0;
		return;
	}
	/* (a -N function and its callees are not traced, as at record time:
	 * a -C match among them leads its callers nowhere) */
	if (f->in_n || off || !(view_filter_match(w->v, f->func) & 16)) {
		if (f->shown && (f->begun || f->wait_t || !s->reached)) {
			f->wait_c = 1;
			f->begun = 0;
		}
		return;
	}
	f->in_c = 1;
	for (size_t i = s->c_done; i + 1 < s->fs.n; i++) {
		struct frame *a = fs_at(&s->fs, i);
		if (!a->wait_c)
			continue;
		a->wait_c = 0;
		if (s->reached && !a->wait_t && a->start_ns <= w->until) {
			a->begun = 1;
			begin_late(w, th, s, i, 1);
		}
	}
	s->c_done = s->fs.n;
}

/* -F/-N/-H/-D: where an entered frame shows, if at all */
static void entry_filters(struct calls_walk *w, struct tstack *s, struct frame *f, const struct frame *parent)
{
	f->depth = parent ? parent->depth + (parent->shown ? 1 : 0) : s->base;
	if (w->filtering) {
		int m = view_filter_match(w->v, f->func);
		f->hidden = (parent && parent->hidden) || (m & 2);
		f->in_n = (parent && parent->in_n) || (m & 2);
		f->in_filter = !w->v->opts->filter.n || (parent && parent->in_filter) || (m & 1);
		if (w->v->opts->filter.n && f->in_filter && !(parent && parent->in_filter))
			f->depth = 0;
		f->shown = f->in_filter && !f->hidden && !(m & 4) &&    /* -H: its callees one level up */
			   (!w->v->opts->max_depth || f->depth < w->v->opts->max_depth);
	} else {
		f->hidden = f->in_n = 0;
		f->in_filter = 1;
		f->shown = 1;
	}
}

/* A forked child's first events: the frames it inherited from its parent
 * (the reader finds them at the fork) go on its stack, never begun, so the
 * filters treat its calls as the record-time filters do (which the child
 * inherits in memory): under an inherited -F function they are in, under
 * an inherited -N one they are out.  Their returns are orphans. */
static void inherit_frames(struct calls_walk *w, struct trace_thread *th, struct tstack *s)
{
	const struct trace_frame_ref *in;
	size_t n = trace_inherited(w->v->trace, th, &in);
	s->forked = 1;
	if (!n)
		return;
	int depth = th->start_depth - th->inherited_ghosts;
	s->base = depth > (int)n ? depth - (int)n : 0;
	for (size_t i = 0; i < n; i++) {
		struct frame *parent = s->fs.n ? fs_top(&s->fs) : NULL;
		struct frame *f = fs_push(&s->fs);
		memset(f, 0, sizeof(*f));
		f->func = in[i].func;
		f->addr = in[i].addr;
		f->inherited = 1;
		entry_filters(w, s, f, parent);
		f->start_ns = 0;
	}
	s->decided = s->c_done = s->fs.n;
}

static inline void on_event(struct calls_walk *w, struct trace_thread *th, struct tstack *s,
			    const struct trace_event *ev)
{
	int in_range = ev->ns >= w->since && ev->ns <= w->until;

	if (!s->reached && ev->ns >= w->since)
		reach(w, th, s);
	if (w->min && s->decided < s->fs.n)
		promote(w, th, s, ev->ns);
	if (__builtin_expect(s->next_out < th->n_moves_out, 0) && th->moves_out[s->next_out]->ns <= ev->ns)
		moves_out_due(w, th, s, ev->ns);
	switch (ev->kind) {
	case TRACE_ENTRY: {
		struct frame *parent, *f;
		if (__builtin_expect(s->gh.n != 0, 0))
			ghosts_settle(&s->gh, s->fs.n);
		f = fs_push(&s->fs);
		parent = s->fs.n > 1 ? fs_at(&s->fs, s->fs.n - 2) : NULL;   /* resident: near the top */
		f->func = ev->func;
		f->addr = ev->addr;
		f->start_ns = ev->ns;
		f->child_ns = 0;
		f->kept = NULL;
		f->callsite = ev->callsite;
		f->callsite_file = ev->callsite_file;
		f->callsite_vaddr = ev->callsite_vaddr;
		/* the call site of its caller: a function inlined into the caller,
		 * whose -finstrument-functions hook the compiler gives the caller's
		 * call site, not its own; where it was called is not recorded.
		 * Compared with the site the caller's entry recorded (one inlined
		 * into an inlined function has that too), and not for a direct
		 * recursion, whose every level is called from the same place */
		f->callsite_raw = f->callsite;
		if (parent && f->callsite && parent->callsite_raw == f->callsite &&
		    (parent->func != f->func || !site_in_func(w->v, ev, parent->func)))
			f->callsite = 0;
		/* payloads only where the file says records carry them (elsewhere
		 * the field holds whatever the batch slot held before) */
		f->args = (th->proc->hdr.flags & FNT_FLAG_ARGS) ? ev->payload : NULL;
		f->args_len = f->args ? ev->payload_len : 0;
		f->ret = NULL;
		f->ret_len = 0;
		f->inherited = 0;
		entry_filters(w, s, f, parent);
		f->dlim = parent ? parent->dlim : 0;
		f->trig = 0;
		/* the display off at the entry (a trace_on of its own counted,
		 * not a trace_off: at record time its entry is written, and a
		 * -C match made, before the trace_off acts) */
		int off = s->off;
		if (w->triggers) {
			if (view_filter_match(w->v, ev->func) & 32) {
				const struct trigger *g = view_trigger(w->v, ev->func);
				f->trig = g->flags;
				if ((g->flags & TRIG_ON) && !s->finished)
					s->off = 0;
				off = s->off;
				/* trace_off, finish and backtrace act on a call that
				 * is shown, as at record time on a call written:
				 * not under -N, -H, outside -F, past -D or depth=N,
				 * inside a -C match, or while off (the runtime looks
				 * for them only as it writes the entry) */
				if (!f->shown || s->off || (f->dlim && f->depth >= f->dlim) || (parent && parent->in_c))
					f->trig &= ~(unsigned)(TRIG_OFF | TRIG_FINISH | TRIG_BACKTRACE | TRIG_SNAPSHOT);
				if (f->trig & TRIG_OFF)
					s->off = 1;
				if ((g->flags & TRIG_TIME) && !w->collect && is_short_call(w->v, th, s, ev->ns))
					f->hidden = 1;        /* with its callees, like -N */
			}
			if (s->off || f->hidden || (f->dlim && f->depth >= f->dlim))
				f->shown = 0;
			/* (a call left out only by -H sets its limit too, as at
			 * record time: its callees take its level) */
			if ((f->trig & TRIG_DEPTH) && (f->shown || (!s->off && !f->hidden && f->in_filter &&
								    !(f->dlim && f->depth >= f->dlim) &&
								    (view_filter_match(w->v, ev->func) & 4) &&
								    (!w->v->opts->max_depth ||
								     f->depth < w->v->opts->max_depth)))) {
				int lim = f->depth + view_trigger(w->v, ev->func)->depth;
				if (!f->dlim || lim < f->dlim)
					f->dlim = lim;
			}
		}
		f->begun = (f->shown || w->all) && s->reached && ev->ns <= w->until;
		f->wait_t = 0;
		if (w->min && f->begun && f->shown) {
			f->begun = 0;
			f->wait_t = 1;
		}
		f->wait_c = f->in_c = 0;
		if (w->callers)
			caller_filter(w, th, s, f, parent, off);
		if (f->begun && w->ops->begin)
			w->ops->begin(w->ctx, th, f);
		trigger_stack(w, th, s, s->fs.n - 1);
		break;
	}
	case TRACE_EXIT: {
		size_t i = open_upto(s, ev->addr);
		if (!i && s->owed) {
			owed_exit(w, th, s, ev, in_range);
			break;
		}
		/* (not while this stack has calls open that the stream did not
		 * see entered: the exit is theirs, not a parked stack's whose
		 * innermost frame is the same function) */
		if (!i && s->n_parked && !(s->pre > 0 && !s->fs.n) && find_parked(w, th, s, ev->addr, ev->ns))
			i = s->fs.n;
		if (!i) {
			if (s->fs.n == 0) {
				if (s->pre > 0)
					s->pre--;
				if (s->base > 0)
					s->base--;
				if (w->ops->orphan && !w->filtering && in_range)
					w->ops->orphan(w->ctx, th, ev, s->base, orphan_why(w, th, s, ev));
			}
			break;
		}
		/* the calls inside it close unwound: the runtime still counts
		 * them (a landing pad that was not traced, a longjmp it missed) */
		ghosts_add(&s->gh, i, s->fs.n - i);
		while (s->fs.n > i)
			pop(w, th, s, ev->ns, CALL_UNWOUND);
		struct frame *done = fs_top(&s->fs);
		if (done->inherited) {
			if (w->ops->orphan && done->shown && !w->callers && in_range)
				w->ops->orphan(w->ctx, th, ev, done->depth, ORPHAN_BEFORE);
			drop_kept(w, done);
			fs_pop(&s->fs);
			break;
		}
		done->ret = (th->proc->hdr.flags & FNT_FLAG_ARGS) ? ev->payload : NULL;
		done->ret_len = done->ret ? ev->payload_len : 0;
		pop(w, th, s, ev->ns, CALL_RETURN);
		break;
	}
	case TRACE_LOST:
		if (w->ops->lost && in_range)
			w->ops->lost(w->ctx, th, ev->count, ev->ns);
		break;
	case TRACE_GAP: {
		/* chunks missing: the calls open end in the gap, where they
		 * cannot be followed (an exit after it, paired with an entry
		 * before, made a call last through it); the exits of the calls
		 * the runtime counted open after it are orphans from there */
		int64_t depth = (int64_t)ev->addr;
		/* those of the machine stacks parked (coroutines) too: which
		 * of them ran in the gap, and how far, cannot be told */
		end_every_stack(w, th, s, ev->ns, CALL_GAP);
		for (size_t k = 0; k < s->n_parked; k++) {
			s->parked[k].owed = 0;
			s->parked[k].gh.n = 0;
			s->parked[k].pre = 0;
		}
		s->owed = 0;
		s->pre = 0;
		s->gh.n = 0;            /* (the runtime counted on through the gap) */
		s->after_gap = 1;
		s->partial = 1;
		s->base = depth > 0 && depth < (1 << 20) ? (int)depth : 0;
		s->next_base = -1;
		if (ev->callsite_vaddr)
			stacks_known(s, ev->callsite_vaddr);
		break;
	}
	case TRACE_SWITCH:
		if (s->next_in < th->n_moves_in)
			switch_in(w, th, s, ev->count, ev->ns);
		else
			switch_stack(w, th, s, ev->count, ev->ns, ev->addr, ev->callsite_vaddr);
		break;
	case TRACE_STACK:
		if (w->ops->stack && in_range && s->reached && !s->off) {
			struct frame *top = fs_top(&s->fs);
			/* (a call -H hides: the stack goes one level up, with its
			 * callees, to the call that shows them) */
			int depth = top ? top->depth + (top->shown ? 1 : 0) : s->base;
			size_t k = s->fs.n;
			while (k > 0 && h_hidden(w, s, fs_at(&s->fs, k - 1)))
				k--;
			/* (none shown: a -H call that is the -F match itself, its
			 * callees at the top; a spilled frame's pointer lasts to
			 * the next fs_at) */
			struct frame *at = k ? fs_at(&s->fs, k - 1) : NULL;
			if (at && k < s->fs.n && !at->in_filter)
				at = NULL;
			if (!at || at->begun)
				w->ops->stack(w->ctx, th, ev, NULL, ev->count, ev->ns, depth);
			else if (at->wait_c || at->wait_t)
				keep_stack(w, at, ev);
		}
		break;
	case TRACE_UNWIND: {
		/* ev->count calls as the runtime counts them: the ghosts inside
		 * each frame go before the frame */
		uint64_t below;
		for (size_t k = ghosts_unwind(&s->gh, s->fs.n, ev->count, &below); k > 0; k--)
			pop(w, th, s, ev->ns, CALL_UNWOUND);
		for (; below && s->owed; below--) {     /* calls owed to this stack, left (switch_in) */
			s->owed--;
			if (s->base > 0)
				s->base--;
		}
		break;
	}
	case TRACE_UNWIND_TO: {
		/* an exception landed in the innermost open call of ev->addr
		 * (clang's -finstrument-functions calls no exit hook for the
		 * frames it unwinds): the calls inside it are gone */
		size_t i = open_upto(s, ev->addr);
		if (i && ev->callsite && s->fs.n > i) {     /* calls inlined there, that hold the catch */
			uint32_t above[16];
			size_t n = 0;
			for (; n < 16 && i + n < s->fs.n; n++)
				above[n] = fs_at(&s->fs, i + n)->func;
			i += calls_landing_kept(w->v, ev, above, n);
		}
		if (i)
			ghosts_add(&s->gh, i, s->fs.n - i);
		while (i && s->fs.n > i)
			pop(w, th, s, ev->ns, CALL_UNWOUND);
		break;
	}
	case TRACE_MARK:
		if (w->ops->mark && in_range && s->reached) {
			struct frame *top = fs_top(&s->fs);
			int depth = top ? top->depth + (top->shown ? 1 : 0) : s->base;
			w->ops->mark(w->ctx, th, ev->body->text, ev->body->text_len, ev->ns, depth);
		}
		break;
	case TRACE_STREAM_END:   /* at the thread's last event so far */
		if (w->v->opts->live)
			break;   /* live: more may come */
		close_all(w, th, ev->ns, 0);
		break;
	case TRACE_THREAD_END:
		close_all(w, th, ev->ns, 1);
		break;
	default:
		break;
	}
}

static int on_batch(void *ctx, const struct trace_event *ev, size_t n)
{
	struct calls_walk *w = ctx;
	struct trace_thread *th = ev->thread;
	struct tstack *s = stack_of(w, th);
	if (w->v->stop_walk)
		return 1;
	if (!s->forked && th->start_depth > 0 && w->filtering)
		inherit_frames(w, th, s);
	if (w->v->opts->live) {
		for (size_t i = 0; i < n; i++) {
			if (ev[i].ns > w->v->opts->horizon_ns && ev[i].kind != TRACE_STREAM_END)
				return 1;
			on_event(w, th, s, &ev[i]);
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		on_event(w, th, s, &ev[i]);
	return 0;
}

static int walk(struct view *v, int by_time, const struct calls_ops *ops, void *ctx, int all_frames, int collect)
{
	struct calls_walk w = {
		.v = v, .ops = ops, .ctx = ctx, .all = all_frames,
		.filtering = v->opts->filter.n || v->opts->notrace.n || v->opts->hide.n || v->opts->callers.n ||
			     v->opts->max_depth || v->opts->n_triggers,
		.callers = v->opts->callers.n > 0,
		.triggers = v->opts->n_triggers > 0,
		.collect = collect,
		.since = v->opts->since_ns,
		.until = v->opts->has_until ? v->opts->until_ns : UINT64_MAX,
		.min = v->opts->min_ns,
		.by_time = by_time,
	};
	struct trace *t = v->trace;
	for (size_t i = 0; i < v->opts->n_triggers; i++)
		w.start_off |= (v->opts->triggers[i].flags & TRIG_ON) != 0;
	int ret = trace_walk_batch(t, by_time, on_batch, &w);

	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct trace_thread *th = &t->procs[i].threads[k];
			if (!v->opts->live)
				close_all(&w, th, th->last_ns, th->ended);
			if (th->view_data) {
				struct tstack *s = th->view_data;
				if (w.kept_bytes)
					drop_all_kept(&w, s);
				for (size_t j = 0; j < s->n_parked; j++) {
					fs_free(&s->parked[j].fs);
					ghosts_free(&s->parked[j].gh);
				}
				free(s->parked);
				fs_free(&s->fs);
				ghosts_free(&s->gh);
				free(th->view_data);
				th->view_data = NULL;
			}
		}
	return ret;
}

int calls_walk(struct view *v, int by_time, const struct calls_ops *ops, void *ctx, int all_frames)
{
	int timed = 0;
	for (size_t i = 0; i < v->opts->n_triggers; i++)
		timed |= (v->opts->triggers[i].flags & TRIG_TIME) != 0;
	if (timed && !v->short_calls) {
		/* time=: a first walk notes the calls too short to show */
		static const struct calls_ops none;
		v->short_calls = xcalloc(1, sizeof(*v->short_calls));
		walk(v, by_time, &none, NULL, 0, 1);
		for (size_t i = 0; i < v->short_calls->n; i++) {
			struct short_list *l = &v->short_calls->lists[i];
			if (l->n)
				qsort(l->starts, l->n, sizeof(*l->starts), cmp_u64);
		}
	}
	return walk(v, by_time, ops, ctx, all_frames, 0);
}

void calls_release(struct view *v)
{
	if (!v->short_calls)
		return;
	for (size_t i = 0; i < v->short_calls->n; i++)
		free(v->short_calls->lists[i].starts);
	free(v->short_calls->lists);
	free(v->short_calls);
	v->short_calls = NULL;
}
