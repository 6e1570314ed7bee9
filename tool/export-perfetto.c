/*
 * export-perfetto.c - Perfetto's native protobuf trace (ui.perfetto.dev,
 * trace_processor), written as a stream with a hand-written encoder.
 *
 * The file is a Trace message: a run of `packet` fields, each one
 * TracePacket.  First a track per process (ProcessDescriptor: pid, the
 * program as process_name, its command line) and a track per thread
 * (ThreadDescriptor: pid, tid, thread_name) whose parent is its process's
 * track; then one TrackEvent per entry (TYPE_SLICE_BEGIN) and exit
 * (TYPE_SLICE_END), thread after thread.  All packets share one sequence
 * (trusted_packet_sequence_id 1) whose first packet says
 * SEQ_INCREMENTAL_STATE_CLEARED; a function's name and source location are
 * interned (InternedData event_names / source_locations, iid = function id
 * + 1) in the packet of its first call, and later calls name them by iid
 * (packets that do so say SEQ_NEEDS_INCREMENTAL_STATE).  A slice that did
 * not return normally carries a debug annotation on its end event, like the
 * chrome export's args: end = unwound | trace ended | exec | moved to
 * another thread.
 *
 * Timestamps are absolute, so that the file lines up with a kernel or system
 * trace of the same run: CLOCK_BOOTTIME (Perfetto's default trace clock)
 * when `fntrace record` noted its offset from CLOCK_MONOTONIC, else
 * CLOCK_MONOTONIC, declared once for the sequence (TracePacketDefaults).  A
 * ClockSnapshot first says how BOOTTIME, MONOTONIC and REALTIME relate at
 * the start of the recording.
 *
 * Memory: the call stacks, one output buffer and a byte per function.
 *
 * Field numbers, from Perfetto's .proto files (protos/perfetto/...):
 *   trace/trace.proto                   Trace.packet = 1
 *   trace/trace_packet.proto            TracePacket.clock_snapshot = 6, timestamp = 8,
 *                                         trusted_packet_sequence_id = 10,
 *                                         track_event = 11, interned_data = 12,
 *                                         sequence_flags = 13 (SEQ_INCREMENTAL_STATE_CLEARED = 1,
 *                                         SEQ_NEEDS_INCREMENTAL_STATE = 2),
 *                                         trace_packet_defaults = 59, track_descriptor = 60
 *   trace/trace_packet_defaults.proto   TracePacketDefaults.timestamp_clock_id = 58
 *   trace/clock_snapshot.proto          ClockSnapshot.clocks = 1, primary_trace_clock = 2;
 *                                         Clock.clock_id = 1, timestamp = 2; builtin clocks
 *                                         REALTIME = 1, MONOTONIC = 3, BOOTTIME = 6
 *   trace/track_event/track_event.proto TrackEvent.debug_annotations = 4, type = 9
 *                                         (TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2,
 *                                         TYPE_INSTANT = 3), name_iid = 10, track_uuid = 11,
 *                                         name = 23, source_location_iid = 34
 *   trace/track_event/debug_annotation.proto  DebugAnnotation.string_value = 6, name = 10
 *   trace/track_event/track_descriptor.proto  TrackDescriptor.uuid = 1, name = 2, process = 3,
 *                                         thread = 4, parent_uuid = 5
 *   trace/track_event/process_descriptor.proto ProcessDescriptor.pid = 1, cmdline = 2,
 *                                         process_name = 6
 *   trace/track_event/thread_descriptor.proto  ThreadDescriptor.pid = 1, tid = 2, thread_name = 5
 *   trace/interned_data/interned_data.proto    InternedData.event_names = 2, source_locations = 4
 *   trace/track_event/track_event.proto   EventName.iid = 1, name = 2
 *   trace/track_event/source_location.proto  SourceLocation.iid = 1, file_name = 2,
 *                                         function_name = 3, line_number = 4
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tool/export.h"
#include "tool/outbuf.h"

/* wire types */
#define PB_VARINT 0
#define PB_LEN 2
#define TAG(field, type) (((field) << 3) | (type))

enum {
	TRACE_PACKET = 1,
	PKT_TIMESTAMP = 8, PKT_SEQ_ID = 10, PKT_TRACK_EVENT = 11, PKT_INTERNED = 12, PKT_SEQ_FLAGS = 13,
	PKT_TRACK_DESCRIPTOR = 60, PKT_CLOCK_SNAPSHOT = 6, PKT_DEFAULTS = 59, DEF_TIMESTAMP_CLOCK_ID = 58,
	CS_CLOCKS = 1, CS_PRIMARY_TRACE_CLOCK = 2, CLK_ID = 1, CLK_TIMESTAMP = 2,
	CLOCK_REALTIME_ID = 1, CLOCK_MONOTONIC_ID = 3, CLOCK_BOOTTIME_ID = 6,
	SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2,
	TE_DEBUG_ANNOTATIONS = 4, TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK_UUID = 11, TE_NAME = 23,
	TE_SOURCE_LOCATION_IID = 34,
	TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3,
	DA_STRING_VALUE = 6, DA_NAME = 10,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT_UUID = 5,
	PD_PID = 1, PD_CMDLINE = 2, PD_PROCESS_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_THREAD_NAME = 5,
	ID_EVENT_NAMES = 2, ID_SOURCE_LOCATIONS = 4,
	EN_IID = 1, EN_NAME = 2,
	SL_IID = 1, SL_FILE_NAME = 2, SL_FUNCTION_NAME = 3, SL_LINE_NUMBER = 4,
};

#define SEQ_ID 1

/* ---- the encoder: a growable message, fields appended in order ---- */

struct pb {
	uint8_t *p;
	size_t n, cap;
};

static inline size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint8_t *pb_room(struct pb *m, size_t need)
{
	if (m->n + need > m->cap) {
		m->cap = (m->n + need) * 2 + 256;
		m->p = xrealloc(m->p, m->cap);
	}
	return m->p + m->n;
}

static void pb_varint(struct pb *m, unsigned field, uint64_t v)
{
	uint8_t *p = pb_room(m, 20), *e = put_varint(put_varint(p, TAG(field, PB_VARINT)), v);
	m->n += (size_t)(e - p);
}

static void pb_bytes(struct pb *m, unsigned field, const void *s, size_t len)
{
	uint8_t *p = pb_room(m, 20 + len), *e = put_varint(put_varint(p, TAG(field, PB_LEN)), len);
	memcpy(e, s, len);
	m->n += (size_t)(e + len - p);
}

/* a string field: protobuf's strings must be UTF-8 (protoc and Perfetto's
 * importer refuse the trace otherwise), and the program controls most of
 * them (command lines, thread names, function names, marks), so a byte
 * that is not valid UTF-8 becomes U+FFFD (utf8_char) */
static void pb_str(struct pb *m, unsigned field, const char *s)
{
	size_t n = strlen(s), len = utf8_clean_len(s, n);
	if (len == n) {
		pb_bytes(m, field, s, n);
		return;
	}
	uint8_t *p = pb_room(m, 20 + len), *e = put_varint(put_varint(p, TAG(field, PB_LEN)), len);
	e = (uint8_t *)utf8_clean((char *)e, s, n, len);
	m->n += (size_t)(e - p);
}

/* a sub-message: appended as a length-delimited field */
static void pb_msg(struct pb *m, unsigned field, const struct pb *sub)
{
	pb_bytes(m, field, sub->p, sub->n);
}

/* ---- the writer ---- */

struct perfetto_thread {
	uint64_t uuid;           /* the track its events go to now */
	uint64_t own;            /* its own track's */
	/* coroutines: a track below the thread's for each machine stack it
	 * ran on other than its own, so that each track's slices nest */
	struct { uint64_t id, uuid; } *stacks;
	size_t n_stacks;
	char name[17];           /* as described */
	uint64_t last_ns;        /* of its last event: times never decrease on a track */
};

struct perfetto {
	struct view *v;
	struct outbuf ob;
	uint8_t *interned;       /* per function: 1 name interned, 2 with a source location */
	size_t n_interned;
	struct pb pkt, sub, sub2;   /* scratch for the rare, larger packets */
	int first;               /* the next packet is the sequence's first */
	uint64_t n_stack_tracks; /* coroutine stacks' tracks made */
	uint64_t base;           /* absolute time of trace-relative 0 on the trace's clock */
};

/* one TracePacket from a complete body */
static void emit_packet(struct perfetto *w, const uint8_t *body, size_t len)
{
	uint8_t hdr[16], *e = put_varint(put_varint(hdr, TAG(TRACE_PACKET, PB_LEN)), len);
	outbuf_put(&w->ob, hdr, (size_t)(e - hdr));
	outbuf_put(&w->ob, body, len);
}

/* the sequence fields every packet carries; the first one clears the state
 * (and, on the monotonic clock, says so for the whole sequence) */
static void seq_fields(struct perfetto *w, struct pb *m, int needs_state)
{
	pb_varint(m, PKT_SEQ_ID, SEQ_ID);
	if (w->first) {
		pb_varint(m, PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		if (!w->v->trace->session_boot) {
			uint8_t d[8], *e = put_varint(put_varint(d, TAG(DEF_TIMESTAMP_CLOCK_ID, PB_VARINT)),
						      CLOCK_MONOTONIC_ID);
			pb_bytes(m, PKT_DEFAULTS, d, (size_t)(e - d));
		}
		w->first = 0;
	} else if (needs_state) {
		pb_varint(m, PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	}
}

static const char *program_name(const struct trace_process *p)
{
	if (p->argc > 0 && p->argv[0] && *p->argv[0]) {
		const char *b = strrchr(p->argv[0], '/');
		return b && b[1] ? b + 1 : p->argv[0];
	}
	return "process";
}

static uint64_t process_uuid(size_t i)
{
	return (1ull << 40) + i;
}

static void thread_descriptor(struct perfetto *w, struct trace_thread *th, size_t proc)
{
	struct perfetto_thread *pt = th->view_aux;
	struct trace_process *p = th->proc;
	const char *name = th->name[0] ? th->name : program_name(p);

	snprintf(pt->name, sizeof(pt->name), "%s", th->name);
	w->pkt.n = w->sub.n = w->sub2.n = 0;
	pb_varint(&w->sub2, THD_PID, p->hdr.pid);
	pb_varint(&w->sub2, THD_TID, th->tid);
	pb_str(&w->sub2, THD_THREAD_NAME, name);
	pb_varint(&w->sub, TD_UUID, pt->uuid);
	pb_varint(&w->sub, TD_PARENT_UUID, process_uuid(proc));
	pb_msg(&w->sub, TD_THREAD, &w->sub2);
	seq_fields(w, &w->pkt, 0);
	pb_msg(&w->pkt, PKT_TRACK_DESCRIPTOR, &w->sub);
	emit_packet(w, w->pkt.p, w->pkt.n);
}

/* coroutines: the thread's events go to the track of stack `to` from now on */
static void on_switched(void *ctx, struct trace_thread *th, uint64_t from, uint64_t to)
{
	struct perfetto *w = ctx;
	struct perfetto_thread *pt = th->view_aux;
	char name[64];
	(void)from;
	if (!pt)
		return;
	if (!to) {
		pt->uuid = pt->own;
		return;
	}
	size_t k = 0;
	while (k < pt->n_stacks && pt->stacks[k].id != to)
		k++;
	if (k == pt->n_stacks) {
		pt->stacks = xrealloc(pt->stacks, (k + 1) * sizeof(*pt->stacks));
		pt->stacks[k].id = to;
		pt->stacks[k].uuid = (1ull << 41) + w->n_stack_tracks++;   /* above the threads' and processes' */
		pt->n_stacks++;
		snprintf(name, sizeof(name), "stack 0x%" PRIx64, to);
		w->pkt.n = w->sub.n = w->sub2.n = 0;
		pb_varint(&w->sub, TD_UUID, pt->stacks[k].uuid);
		pb_varint(&w->sub, TD_PARENT_UUID, pt->own);
		pb_str(&w->sub, TD_NAME, name);
		seq_fields(w, &w->pkt, 0);
		pb_msg(&w->pkt, PKT_TRACK_DESCRIPTOR, &w->sub);
		emit_packet(w, w->pkt.p, w->pkt.n);
	}
	pt->uuid = pt->stacks[k].uuid;
}

static void clock_pair(struct pb *m, struct pb *tmp, unsigned id, uint64_t ts)
{
	tmp->n = 0;
	pb_varint(tmp, CLK_ID, id);
	pb_varint(tmp, CLK_TIMESTAMP, ts);
	pb_msg(m, CS_CLOCKS, tmp);
}

/* the first packet: how the trace's clock relates to the others at its 0 */
static void clock_snapshot(struct perfetto *w)
{
	struct trace *t = w->v->trace;
	uint64_t boot = t->session_boot ? t->t0_mono + (t->session_boot - t->session_mono) : 0;
	w->pkt.n = w->sub.n = 0;
	if (boot)
		clock_pair(&w->sub, &w->sub2, CLOCK_BOOTTIME_ID, boot);
	clock_pair(&w->sub, &w->sub2, CLOCK_MONOTONIC_ID, t->t0_mono);
	if (t->t0_real)
		clock_pair(&w->sub, &w->sub2, CLOCK_REALTIME_ID, t->t0_real);
	if (!boot)
		pb_varint(&w->sub, CS_PRIMARY_TRACE_CLOCK, CLOCK_MONOTONIC_ID);
	pb_msg(&w->pkt, PKT_CLOCK_SNAPSHOT, &w->sub);
	emit_packet(w, w->pkt.p, w->pkt.n);
	w->base = boot ? boot : t->t0_mono;
}

static void descriptors(struct perfetto *w)
{
	struct trace *t = w->v->trace;
	uint64_t next_uuid = 1;

	clock_snapshot(w);
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		w->pkt.n = w->sub.n = w->sub2.n = 0;
		pb_varint(&w->sub2, PD_PID, p->hdr.pid);
		for (int a = 0; a < p->argc; a++)
			if (p->argv[a])
				pb_str(&w->sub2, PD_CMDLINE, p->argv[a]);
		pb_str(&w->sub2, PD_PROCESS_NAME, program_name(p));
		pb_varint(&w->sub, TD_UUID, process_uuid(i));
		pb_msg(&w->sub, TD_PROCESS, &w->sub2);
		seq_fields(w, &w->pkt, 0);
		pb_msg(&w->pkt, PKT_TRACK_DESCRIPTOR, &w->sub);
		emit_packet(w, w->pkt.p, w->pkt.n);

		for (size_t k = 0; k < p->n_threads; k++) {
			struct trace_thread *th = &p->threads[k];
			struct perfetto_thread *pt;
			if (!th->selected)
				continue;
			pt = xcalloc(1, sizeof(*pt));
			pt->uuid = pt->own = next_uuid++;   /* small: one varint byte per event below 128 threads */
			th->view_aux = pt;
			thread_descriptor(w, th, i);
		}
	}
}

/* after the walk: threads that named themselves while running get their
 * final name (a later descriptor of the same track renames it) */
static void rename_threads(struct perfetto *w)
{
	struct trace *t = w->v->trace;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct trace_thread *th = &t->procs[i].threads[k];
			struct perfetto_thread *pt = th->view_aux;
			if (pt && th->name[0] && strcmp(pt->name, th->name))
				thread_descriptor(w, th, i);
		}
}

static uint8_t *interned_of(struct perfetto *w, uint32_t func)
{
	if (func >= w->n_interned) {
		size_t n = w->n_interned ? w->n_interned : 256;
		while (n <= func)
			n *= 2;
		w->interned = xrealloc(w->interned, n);
		memset(w->interned + w->n_interned, 0, n - w->n_interned);
		w->n_interned = n;
	}
	return &w->interned[func];
}

/* InternedData for a function's first appearance, into w->sub */
static int intern(struct perfetto *w, uint32_t func)
{
	const char *name = view_name(w->v, func), *file;
	int line, has_src = !view_srcline(w->v, func, &file, &line);

	w->sub.n = w->sub2.n = 0;
	pb_varint(&w->sub2, EN_IID, (uint64_t)func + 1);
	pb_str(&w->sub2, EN_NAME, name);
	pb_msg(&w->sub, ID_EVENT_NAMES, &w->sub2);
	if (has_src) {
		w->sub2.n = 0;
		pb_varint(&w->sub2, SL_IID, (uint64_t)func + 1);
		pb_str(&w->sub2, SL_FILE_NAME, file);
		pb_str(&w->sub2, SL_FUNCTION_NAME, view_full_name(w->v, func));
		pb_varint(&w->sub2, SL_LINE_NUMBER, (uint64_t)line);
		pb_msg(&w->sub, ID_SOURCE_LOCATIONS, &w->sub2);
	}
	return has_src ? 2 : 1;
}

/*
 * The hot path: a slice begin or end.  The TrackEvent and the packet are
 * small and built on the stack; a packet that interns a function goes
 * through the scratch messages instead.
 */
#define DA_VALUE_MAX 512   /* bytes of an annotation value (argument text) */

static void slice_event(struct perfetto *w, struct trace_thread *th, uint32_t func, uint64_t ns, int type,
			const char *da_name, const char *mark)
{
	struct perfetto_thread *pt = th->view_aux;
	uint8_t te[128 + DA_VALUE_MAX], *e = te, body[64], *b = body;
	uint8_t *state = NULL;
	int new_func = 0;

	if (!pt)        /* a thread with no descriptor (cannot happen: all selected ones have one) */
		return;
	if (ns < pt->last_ns)     /* only if the clock went back: keep the track's order */
		ns = pt->last_ns;
	pt->last_ns = ns;
	e = put_varint(put_varint(e, TAG(TE_TYPE, PB_VARINT)), (uint64_t)type);
	e = put_varint(put_varint(e, TAG(TE_TRACK_UUID, PB_VARINT)), pt->uuid);
	if (type != TYPE_SLICE_END) {
		state = interned_of(w, func);
		if (!*state) {
			*state = (uint8_t)intern(w, func);
			new_func = 1;
		}
		e = put_varint(put_varint(e, TAG(TE_NAME_IID, PB_VARINT)), (uint64_t)func + 1);
		if (*state == 2)
			e = put_varint(put_varint(e, TAG(TE_SOURCE_LOCATION_IID, PB_VARINT)), (uint64_t)func + 1);
	}
	if (mark) {
		/* DebugAnnotation { name: da_name ("end", "args", "retval"), string_value: mark },
		 * written in place: its length is known before its fields.  The
		 * mark as UTF-8 (pb_str), cut to DA_VALUE_MAX bytes between
		 * characters (argument text holds the program's strings) */
		char clean[DA_VALUE_MAX];
		size_t nl = strlen(da_name);
		size_t ml = (size_t)(utf8_clean(clean, mark, strlen(mark), DA_VALUE_MAX) - clean);
		size_t da_len = 2 + varint_len(nl) + nl + varint_len(ml) + ml;
		e = put_varint(put_varint(e, TAG(TE_DEBUG_ANNOTATIONS, PB_LEN)), da_len);
		e = put_varint(put_varint(e, TAG(DA_NAME, PB_LEN)), nl);
		memcpy(e, da_name, nl);
		e += nl;
		e = put_varint(put_varint(e, TAG(DA_STRING_VALUE, PB_LEN)), ml);
		memcpy(e, clean, ml);
		e += ml;
	}
	if (new_func || w->first) {
		struct pb *m = &w->pkt;
		m->n = 0;
		pb_varint(m, PKT_TIMESTAMP, w->base + ns);
		seq_fields(w, m, 1);
		if (new_func)
			pb_msg(m, PKT_INTERNED, &w->sub);
		pb_bytes(m, PKT_TRACK_EVENT, te, (size_t)(e - te));
		emit_packet(w, m->p, m->n);
		return;
	}
	/* the packet's head fields, then the track event, straight into the
	 * output: the body's length is known before it is written */
	b = put_varint(put_varint(b, TAG(PKT_TIMESTAMP, PB_VARINT)), w->base + ns);
	*b++ = TAG(PKT_SEQ_ID, PB_VARINT);
	*b++ = SEQ_ID;
	if (type != TYPE_SLICE_END) {
		*b++ = TAG(PKT_SEQ_FLAGS, PB_VARINT);
		*b++ = SEQ_NEEDS_INCREMENTAL_STATE;
	}
	b = put_varint(put_varint(b, TAG(PKT_TRACK_EVENT, PB_LEN)), (uint64_t)(e - te));

	size_t head = (size_t)(b - body), len = head + (size_t)(e - te);
	uint8_t *o = (uint8_t *)outbuf_room(&w->ob, len + 16), *oe;
	oe = put_varint(put_varint(o, TAG(TRACE_PACKET, PB_LEN)), len);
	memcpy(oe, body, head);
	memcpy(oe + head, te, (size_t)(e - te));
	w->ob.len += (size_t)(oe + len - o);
}

/* the recorded arguments (is_ret 0) or return value of a call as text, or NULL */
static const char *values(struct trace_thread *th, const struct frame *f, int is_ret, char *buf, size_t cap)
{
	const char *spec;
	if (!th->proc->n_argspecs || !(spec = trace_argspec(th->proc, f->addr)))
		return NULL;
	args_where(th->proc, f->start_ns);
	if (!args_format(spec, th->proc->hdr.version, is_ret ? f->ret : f->args, is_ret ? f->ret_len : f->args_len, is_ret, buf, cap))
		return NULL;
	return buf;
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	char buf[DA_VALUE_MAX + 1];
	const char *args = values(th, f, 0, buf, sizeof(buf));
	slice_event(ctx, th, f->func, f->start_ns, TYPE_SLICE_BEGIN, "args", args);
}

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	char buf[DA_VALUE_MAX + 1];
	const char *mark = call_end_text(th, how);
	const char *ret = how == CALL_RETURN ? values(th, f, 1, buf, sizeof(buf)) : NULL;
	slice_event(ctx, th, f->func, end_ns > f->start_ns ? end_ns : f->start_ns, TYPE_SLICE_END,
		    ret ? "retval" : "end", ret ? ret : mark);
}

static void on_orphan(void *ctx, struct trace_thread *th, const struct trace_event *ev, int depth,
		      enum call_orphan why)
{
	char buf[DA_VALUE_MAX + 1];
	(void)depth;
	if (args_orphan_retval(th, ev, buf, sizeof(buf))) {
		slice_event(ctx, th, ev->func, ev->ns, TYPE_INSTANT, "retval", buf);
		return;
	}
	slice_event(ctx, th, ev->func, ev->ns, TYPE_INSTANT, "end",
		    why == ORPHAN_MOVED ? "exit of a call entered on another thread" :
		    why == ORPHAN_GAP ? "exit of a call entered where trace data is missing" :
		    why == ORPHAN_OFF ? "exit of a call entered while recording was off" : "exit without entry");
}

static void on_lost(void *ctx, struct trace_thread *th, uint64_t count, uint64_t ns)
{
	struct perfetto *w = ctx;
	struct perfetto_thread *pt = th->view_aux;
	char text[64];
	if (!pt)
		return;
	if (ns < pt->last_ns)
		ns = pt->last_ns;
	pt->last_ns = ns;
	snprintf(text, sizeof(text), "%" PRIu64 " events could not be recorded here", count);
	w->pkt.n = w->sub.n = w->sub2.n = 0;
	pb_str(&w->sub2, DA_NAME, "lost");
	pb_str(&w->sub2, DA_STRING_VALUE, text);
	pb_varint(&w->sub, TE_TYPE, TYPE_INSTANT);
	pb_varint(&w->sub, TE_TRACK_UUID, pt->uuid);
	pb_str(&w->sub, TE_NAME, "fntrace: events lost");
	pb_msg(&w->sub, TE_DEBUG_ANNOTATIONS, &w->sub2);
	pb_varint(&w->pkt, PKT_TIMESTAMP, w->base + ns);
	seq_fields(w, &w->pkt, 0);
	pb_msg(&w->pkt, PKT_TRACK_EVENT, &w->sub);
	emit_packet(w, w->pkt.p, w->pkt.n);
}

/* fnt_mark(): an instant event on the thread's track named by the text,
 * with a debug annotation "mark" */
static void on_mark(void *ctx, struct trace_thread *th, const char *text, size_t len, uint64_t ns, int depth)
{
	struct perfetto *w = ctx;
	struct perfetto_thread *pt = th->view_aux;
	(void)depth;
	(void)len;                  /* text is NUL-terminated by the reader */
	if (!pt)
		return;
	if (ns < pt->last_ns)
		ns = pt->last_ns;
	pt->last_ns = ns;
	w->pkt.n = w->sub.n = w->sub2.n = 0;
	pb_str(&w->sub2, DA_NAME, "fntrace");
	pb_str(&w->sub2, DA_STRING_VALUE, "mark");
	pb_varint(&w->sub, TE_TYPE, TYPE_INSTANT);
	pb_varint(&w->sub, TE_TRACK_UUID, pt->uuid);
	pb_str(&w->sub, TE_NAME, text);
	pb_msg(&w->sub, TE_DEBUG_ANNOTATIONS, &w->sub2);
	pb_varint(&w->pkt, PKT_TIMESTAMP, w->base + ns);
	seq_fields(w, &w->pkt, 0);
	pb_msg(&w->pkt, PKT_TRACK_EVENT, &w->sub);
	emit_packet(w, w->pkt.p, w->pkt.n);
}

int export_perfetto(struct view *v, const struct export_opts *o, FILE *out)
{
	static const struct calls_ops ops = { .begin = on_begin, .end = on_end, .orphan = on_orphan, .lost = on_lost,
					      .mark = on_mark, .switched = on_switched };
	struct perfetto w = { .v = v, .ob = { .out = out }, .first = 1 };
	struct trace *t = v->trace;
	int ret = 0;

	w.ob.buf = xmalloc(OUTBUF_CAP);
	descriptors(&w);
	calls_walk(v, 0, &ops, &w, 0);
	rename_threads(&w);
	outbuf_flush(&w.ob);
	if (w.ob.failed) {
		error_msg("cannot write '%s': %s (nothing was written to it)",
			  strcmp(o->output, "-") ? o->output : "standard output", strerror(errno));
		ret = -1;
	}
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			struct perfetto_thread *pt = t->procs[i].threads[k].view_aux;
			if (pt)
				free(pt->stacks);
			free(pt);
			t->procs[i].threads[k].view_aux = NULL;
		}
	free(w.interned);
	free(w.pkt.p);
	free(w.sub.p);
	free(w.sub2.p);
	free(w.ob.buf);
	return ret;
}
