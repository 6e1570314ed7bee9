/*
 * perf-data.c - the header, attributes and sample records of a perf.data
 * file (perf-data.h).  Every read is checked against the end of what it
 * belongs to (the file, the section, the record), so a torn or corrupt file
 * gives a reason in pd->err, never a read out of bounds.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool/perf-data.h"

#define HEADER_SIZE     104     /* magic, size, attr_size, 3 sections, the feature bitmap */
#define ATTR_VER0       64      /* the smallest perf_event_attr */
#define RECORD_AUXTRACE 71      /* followed by data its size does not count */
#define RECORD_COMPRESSED 81
#define RECORD_COMM 3
#define RECORD_FORK 7
#define MISC_COMM_EXEC (1u << 13)    /* a COMM record written by exec */
#define MISC_FORK_EXEC (1u << 13)    /* a FORK whose child execs: perf clones no maps into it */

uint64_t pd_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

void pd_put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static int fail(struct perf_data *pd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct perf_data *pd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pd->err, sizeof(pd->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* a section {offset, size} that lies inside the file */
static int section(const struct perf_data *pd, size_t at, size_t *off, size_t *len)
{
	uint64_t o = pd_u64(pd->buf + at), n = pd_u64(pd->buf + at + 8);
	if (o > pd->size || n > pd->size - o)
		return -1;
	*off = (size_t)o;
	*len = (size_t)n;
	return 0;
}

int perf_data_open(struct perf_data *pd, const uint8_t *buf, size_t size)
{
	size_t attrs_off, attrs_len, attr_size;

	memset(pd, 0, sizeof(*pd));
	pd->buf = buf;
	pd->size = size;
	if (size < 16 || (memcmp(buf, "PERFILE2", 8) && memcmp(buf, "2ELIFREP", 8)))
		return fail(pd, "not a perf.data file");
	if (!memcmp(buf, "2ELIFREP", 8))
		return fail(pd, "written in the other byte order: not handled");
	if (pd_u64(buf + 8) == 16)
		return fail(pd, "a pipe-mode perf.data ('perf record -o -'): not handled (record to a file)");
	if (size < HEADER_SIZE || pd_u64(buf + 8) < HEADER_SIZE)
		return fail(pd, "truncated header");
	attr_size = (size_t)(pd_u64(buf + 16) < 4096 ? pd_u64(buf + 16) : 0);
	size_t data_len;
	if (section(pd, 24, &attrs_off, &attrs_len) || section(pd, 40, &pd->data_off, &data_len))
		return fail(pd, "truncated or corrupt: a section of the header ends past the end of the file");
	pd->data_end = pd->data_off + data_len;
	if (attr_size < ATTR_VER0 + 16 || !attrs_len || attrs_len % attr_size)
		return fail(pd, "bad attribute section (attr_size %zu, %zu bytes)", attr_size, attrs_len);
	pd->n_attrs = attrs_len / attr_size;
	pd->attrs = calloc(pd->n_attrs, sizeof(*pd->attrs));
	if (!pd->attrs)
		return fail(pd, "out of memory");
	for (size_t i = 0; i < pd->n_attrs; i++) {
		const uint8_t *a = buf + attrs_off + i * attr_size;
		struct perf_attr *at = &pd->attrs[i];
		size_t have = attr_size - 16, ids_off, ids_len;
		uint64_t flags = pd_u64(a + 40);
		at->sample_type = pd_u64(a + 24);
		at->read_format = pd_u64(a + 32);
		at->sample_id_all = (int)(flags >> 18 & 1);
		at->use_clockid = (int)(flags >> 25 & 1);
		if (have >= 80)
			at->branch_sample_type = pd_u64(a + 72);
		if (have >= 88)
			at->regs_user = pd_u64(a + 80);
		if (have >= 96)
			at->clockid = (int32_t)u32_at(a + 92);
		/* every bit the kernel defines (up to PERF_SAMPLE_WEIGHT_STRUCT, bit
		 * 24) lies before the callchain, between it and the user stack, or
		 * after the user stack; where a later one lies is not known */
		if (at->sample_type >> 25)
			return fail(pd, "event %zu's samples have fields not known here (sample_type 0x%" PRIx64 ")", i,
				    at->sample_type);
		if (section(pd, attrs_off + i * attr_size + have, &ids_off, &ids_len))
			return fail(pd, "the ids of event %zu lie outside the file", i);
		at->ids = (const uint64_t *)(buf + ids_off);
		at->n_ids = ids_len / 8;
	}
	pd->pos = pd->data_off;
	return 0;
}

void perf_data_rewind(struct perf_data *pd)
{
	pd->pos = pd->data_off;
	pd->records = 0;
}

/* pid -> its last FORK record's offset + 1, or DONE once it exec'd (0:
 * empty), by open addressing; n: the slots taken */
#define DONE SIZE_MAX
struct pending {
	uint32_t *pid;
	size_t *at;
	size_t cap, n;
};

static size_t *pending_slot(struct pending *pf, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (pf->cap - 1);
	while (pf->at[i] && pf->pid[i] != pid)
		i = (i + 1) & (pf->cap - 1);
	pf->pid[i] = pid;
	return &pf->at[i];
}

/* 0, or -1 out of memory (pf as it was) */
static int pending_grow(struct pending *pf)
{
	struct pending old = *pf;
	pf->cap = old.cap ? 2 * old.cap : 64;
	pf->n = 0;
	pf->pid = calloc(pf->cap, sizeof(*pf->pid));
	pf->at = calloc(pf->cap, sizeof(*pf->at));
	if (!pf->pid || !pf->at) {
		free(pf->pid);
		free(pf->at);
		*pf = old;
		return -1;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.at[i] && old.at[i] != DONE)
			*pending_slot(pf, old.pid[i]) = old.at[i], pf->n++;
	free(old.pid);
	free(old.at);
	return 0;
}

/* a FORK or an exec's COMM: where it lies and when perf handles it */
struct task_rec {
	uint64_t time;
	size_t pos;
};

static int cmp_task_rec(const void *a, const void *b)
{
	const struct task_rec *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static const struct perf_attr *attr_of_id(const struct perf_data *pd, uint64_t id)
{
	for (size_t i = 0; i < pd->n_attrs; i++)
		for (size_t k = 0; k < pd->attrs[i].n_ids; k++)
			if (pd_u64((const uint8_t *)&pd->attrs[i].ids[k]) == id)
				return &pd->attrs[i];
	return NULL;
}

/* the fields of a record's sample_id (sample_id_all), at its end, in this
 * order, one u64 each */
#define ID_FIELDS (PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID | PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU | \
		   PD_SAMPLE_IDENTIFIER)

/* The time by which perf orders a record other than a sample: the one in
 * its sample_id, or 0 where it has none (perf then takes the records as
 * they come).  Events whose sample_ids differ are told apart by the
 * identifier that ends each (perf adds it whenever there are several). */
static uint64_t record_time(const struct perf_data *pd, const uint8_t *h, size_t size)
{
	const struct perf_attr *a = &pd->attrs[0];
	int same = 1;
	for (size_t i = 1; i < pd->n_attrs; i++)
		same &= (pd->attrs[i].sample_type & ID_FIELDS) == (a->sample_type & ID_FIELDS) &&
			pd->attrs[i].sample_id_all == a->sample_id_all;
	if (!same)
		a = (a->sample_type & PD_SAMPLE_IDENTIFIER) && size >= 16 ? attr_of_id(pd, pd_u64(h + size - 8)) : NULL;
	if (!a || !a->sample_id_all || !(a->sample_type & PD_SAMPLE_TIME))
		return 0;
	size_t n = (size_t)__builtin_popcountll(a->sample_type & ID_FIELDS);
	if (size < 8 + 8 * n)
		return 0;
	return pd_u64(h + size - 8 * n + (a->sample_type & PD_SAMPLE_TID ? 8 : 0));
}

size_t perf_data_mark_fork_exec(struct perf_data *pd, uint8_t *buf)
{
	struct pending pf = { 0 };
	struct task_rec *tr = NULL;
	size_t n = 0, cap = 0, marked = 0;

	/* perf reads each CPU's ring buffer in turn: a FORK, written to the
	 * parent's CPU's, may follow in the file the exec its child wrote to
	 * another CPU's.  perf pairs them by time, and so does this. */
	for (size_t pos = pd->data_off; pos < pd->data_end && pd->data_end - pos >= 8;) {
		const uint8_t *h = buf + pos;
		uint32_t type = u32_at(h);
		uint16_t misc, size;
		memcpy(&misc, h + 4, 2);
		memcpy(&size, h + 6, 2);
		if (size < 8 || size > pd->data_end - pos || type == RECORD_AUXTRACE)
			break;          /* (perf_data_next has said so) */
		if ((type == RECORD_FORK && size >= 24 && u32_at(h + 8) != u32_at(h + 12)) ||
		    (type == RECORD_COMM && (misc & MISC_COMM_EXEC) && size >= 16)) {
			if (n == cap) {
				struct task_rec *more = realloc(tr, (cap ? 2 * cap : 64) * sizeof(*tr));
				if (!more)
					goto out;
				tr = more;
				cap = cap ? 2 * cap : 64;
			}
			tr[n].time = record_time(pd, h, size);
			tr[n++].pos = pos;
		}
		pos += size;
	}
	if (n)
		qsort(tr, n, sizeof(*tr), cmp_task_rec);
	if (pending_grow(&pf))
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint8_t *h = buf + tr[i].pos;
		if (u32_at(h) == RECORD_FORK) {
			/* a new process (pid != ppid): until its exec, perhaps */
			if (2 * (pf.n + 1) > pf.cap && pending_grow(&pf))
				break;
			size_t *at = pending_slot(&pf, u32_at(h + 8));
			pf.n += !*at;
			*at = tr[i].pos + 1;        /* (a pid that exec'd, forked again) */
		} else {
			size_t *at = pending_slot(&pf, u32_at(h + 8));
			if (*at && *at != DONE) {
				uint8_t *fork = buf + *at - 1;
				uint16_t fm;
				memcpy(&fm, fork + 4, 2);
				marked += !(fm & MISC_FORK_EXEC);
				fm |= MISC_FORK_EXEC;
				memcpy(fork + 4, &fm, 2);
				*at = DONE;         /* (kept taken, so that probes go past it) */
			}
		}
	}
out:
	free(tr);
	free(pf.pid);
	free(pf.at);
	return marked;
}

void perf_data_release(struct perf_data *pd)
{
	free(pd->attrs);
	pd->attrs = NULL;
}

/* which event a sample belongs to: the only one, one whose samples are laid
 * out as every other's, or the one that owns its id (PERF_SAMPLE_IDENTIFIER,
 * the first field, which perf sets whenever there are several events) */
static const struct perf_attr *sample_attr(struct perf_data *pd, const uint8_t *body, size_t len)
{
	const struct perf_attr *a0 = &pd->attrs[0];
	int same = 1;
	for (size_t i = 1; i < pd->n_attrs; i++)
		same &= pd->attrs[i].sample_type == a0->sample_type && pd->attrs[i].regs_user == a0->regs_user &&
			pd->attrs[i].read_format == a0->read_format &&
			pd->attrs[i].branch_sample_type == a0->branch_sample_type;
	if (same)
		return a0;
	if (!(a0->sample_type & PD_SAMPLE_IDENTIFIER) || len < 8)
		return NULL;
	return attr_of_id(pd, pd_u64(body));
}

/* the size of a PERF_SAMPLE_READ value (read_format), or 0 if not known */
static size_t read_size(const struct perf_attr *a, const uint8_t *p, size_t left)
{
	uint64_t f = a->read_format, per = 8;
	if (f & ~0x1full)
		return 0;
	size_t fixed = 8 * (size_t)(!!(f & 1) + !!(f & 2));
	per += 8 * (uint64_t)(!!(f & 4) + !!(f & 16));
	if (!(f & 8))           /* one value: value, [enabled], [running], [id], [lost] */
		return fixed + (size_t)per;
	if (left < 8)
		return 0;
	uint64_t nr = pd_u64(p);
	if (nr > left / per)
		return 0;
	return 8 + fixed + (size_t)(nr * per);
}

int perf_data_next(struct perf_data *pd, struct perf_sample *s)
{
	for (;;) {
		if (pd->pos >= pd->data_end || pd->data_end - pd->pos < 8) {
			if (pd->pos < pd->data_end)
				return fail(pd, "torn record at offset %zu", pd->pos);
			return 0;
		}
		const uint8_t *h = pd->buf + pd->pos;
		uint32_t type = u32_at(h);
		uint16_t misc, size;
		memcpy(&misc, h + 4, 2);
		memcpy(&size, h + 6, 2);
		if (size < 8 || size > pd->data_end - pd->pos)
			return fail(pd, "torn or corrupt record at offset %zu (type %" PRIu32 ", %u bytes)", pd->pos, type,
				    size);
		if (type == RECORD_COMPRESSED)
			return fail(pd, "compressed records ('perf record -z'): not handled (record without -z)");
		if (type == RECORD_AUXTRACE)
			return fail(pd, "AUX area data: not handled");
		size_t rec = pd->pos;
		pd->pos += size;
		pd->records++;
		if (type != PD_RECORD_SAMPLE)
			continue;

		const uint8_t *p = h + 8, *end = h + size;
		const struct perf_attr *a = sample_attr(pd, p, (size_t)(end - p));
		if (!a)
			return fail(pd, "a sample at offset %zu belongs to no event of the file", rec);
		uint64_t t = a->sample_type;
		memset(s, 0, sizeof(*s));
		s->rec = rec;
		s->attr = a;
		s->misc = misc;
#define NEED(n) do { if ((size_t)(end - p) < (size_t)(n)) \
		return fail(pd, "truncated sample at offset %zu", rec); } while (0)
		if (t & PD_SAMPLE_IDENTIFIER) {
			NEED(8);
			p += 8;
		}
		if (t & PD_SAMPLE_IP) {
			NEED(8);
			s->ip = pd_u64(p);
			s->has_ip = 1;
			p += 8;
		}
		if (t & PD_SAMPLE_TID) {
			NEED(8);
			s->pid = u32_at(p);
			s->tid = u32_at(p + 4);
			p += 8;
		}
		if (t & PD_SAMPLE_TIME) {
			NEED(8);
			s->time = pd_u64(p);
			p += 8;
		}
		for (uint64_t bit = PD_SAMPLE_ADDR; bit <= PD_SAMPLE_PERIOD; bit <<= 1) {
			if (!(t & bit) || bit == PD_SAMPLE_READ || bit == PD_SAMPLE_CALLCHAIN)
				continue;
			NEED(8);        /* addr, id, stream_id, cpu+res, period: one u64 each */
			p += 8;
		}
		/* the layout's order: stream_id comes before cpu and period
		 * (perf_event.h) and is a u64 like them, so summing them is right */
		if (t & PD_SAMPLE_STREAM_ID) {
			NEED(8);
			p += 8;
		}
		if (t & PD_SAMPLE_READ) {
			size_t n = read_size(a, p, (size_t)(end - p));
			if (!n)
				return fail(pd, "a sample's read_format (0x%" PRIx64 ") is not handled", a->read_format);
			NEED(n);
			p += n;
		}
		if (t & PD_SAMPLE_CALLCHAIN) {
			NEED(8);
			uint64_t nr = pd_u64(p);
			p += 8;
			if (nr > (uint64_t)(end - p) / 8)
				return fail(pd, "a sample's callchain at offset %zu runs past its record", rec);
			s->chain = (size_t)(p - pd->buf);
			s->chain_nr = nr;
			p += nr * 8;
		}
		if (!(t & (PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER)))
			return 1;
		if (t & PD_SAMPLE_RAW) {
			NEED(4);
			uint32_t n = u32_at(p);
			NEED(4 + (size_t)n);
			p += 4 + n;
		}
		if (t & PD_SAMPLE_BRANCH_STACK) {
			NEED(8);
			uint64_t nr = pd_u64(p);
			size_t hw = (a->branch_sample_type >> 17 & 1) ? 8 : 0;   /* PERF_SAMPLE_BRANCH_HW_INDEX */
			p += 8;
			if (nr > ((uint64_t)(end - p) - (hw < (size_t)(end - p) ? hw : 0)) / 24)
				return fail(pd, "a sample's branch stack at offset %zu runs past its record", rec);
			NEED(hw + nr * 24);
			p += hw + nr * 24;
		}
		if (t & PD_SAMPLE_REGS_USER) {
			NEED(8);
			uint64_t abi = pd_u64(p);
			p += 8;
			if (abi) {
				size_t n = (size_t)__builtin_popcountll(a->regs_user);
				NEED(n * 8);
				uint64_t m = a->regs_user;
				if ((m >> PD_REG_SP & 1) && (m >> PD_REG_IP & 1)) {
					s->user_sp = pd_u64(p + 8 * __builtin_popcountll(m & ((1ull << PD_REG_SP) - 1)));
					s->user_ip = pd_u64(p + 8 * __builtin_popcountll(m & ((1ull << PD_REG_IP) - 1)));
					s->has_regs = 1;
				}
				p += n * 8;
			}
		}
		if (t & PD_SAMPLE_STACK_USER) {
			NEED(8);
			uint64_t n = pd_u64(p);
			p += 8;
			if (n) {
				if (n > (uint64_t)(end - p) || (uint64_t)(end - p) - n < 8)
					return fail(pd, "a sample's user stack at offset %zu runs past its record", rec);
				uint64_t dyn = pd_u64(p + n);
				if (dyn > n)
					return fail(pd, "a sample's user stack at offset %zu says it holds more than it has",
						    rec);
				s->stack = (size_t)(p - pd->buf);
				s->stack_len = dyn;
			}
		}
#undef NEED
		return 1;
	}
}
