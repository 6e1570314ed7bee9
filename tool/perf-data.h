/*
 * perf-data.h - reading a perf.data file (perf record's output) held whole
 * in memory, for `fntrace perf-inject`: its header, its event attributes,
 * and where, in each PERF_RECORD_SAMPLE, the fields lie that name a thread
 * and an instant (pid/tid, time) and that hold return addresses (the
 * callchain; the user registers and the copy of the user stack that
 * `--call-graph dwarf` takes).  Pure: no trace, no symbols.
 *
 * The layout is perf's documented one (tools/perf/Documentation/
 * perf.data-file-format.txt and the perf_event_open ABI): a header
 * (magic "PERFILE2", sections for the attributes and the data), one
 * perf_file_attr per event (perf_event_attr and a section of its sample
 * ids), then the records, each a perf_event_header (type, misc, size) and
 * its body.  Only a file written in this machine's byte order, not in pipe
 * mode, without compressed (-z) or AUX records, is read; anything else is
 * refused with a one-line reason, and every length and offset is checked
 * against the file before it is used.
 *
 * Offsets given back are into the caller's buffer, so that a field can be
 * rewritten in place (the file's layout never changes).
 */
#ifndef FNT_PERF_DATA_H
#define FNT_PERF_DATA_H

#include <stddef.h>
#include <stdint.h>

/* sample_type bits (perf_event.h) */
#define PD_SAMPLE_IP            (1ull << 0)
#define PD_SAMPLE_TID           (1ull << 1)
#define PD_SAMPLE_TIME          (1ull << 2)
#define PD_SAMPLE_ADDR          (1ull << 3)
#define PD_SAMPLE_READ          (1ull << 4)
#define PD_SAMPLE_CALLCHAIN     (1ull << 5)
#define PD_SAMPLE_ID            (1ull << 6)
#define PD_SAMPLE_CPU           (1ull << 7)
#define PD_SAMPLE_PERIOD        (1ull << 8)
#define PD_SAMPLE_STREAM_ID     (1ull << 9)
#define PD_SAMPLE_RAW           (1ull << 10)
#define PD_SAMPLE_BRANCH_STACK  (1ull << 11)
#define PD_SAMPLE_REGS_USER     (1ull << 12)
#define PD_SAMPLE_STACK_USER    (1ull << 13)
#define PD_SAMPLE_IDENTIFIER    (1ull << 16)

/* a callchain entry at or above this is a context marker (PERF_CONTEXT_*),
 * not an address; PD_CONTEXT_USER starts the user part */
#define PD_CONTEXT_MAX          ((uint64_t)-4095)
#define PD_CONTEXT_USER         ((uint64_t)-512)

#define PD_RECORD_SAMPLE        9

/* x86-64 perf_regs indices */
#define PD_REG_SP               7
#define PD_REG_IP               8

struct perf_attr {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_sample_type;
	uint64_t regs_user;         /* sample_regs_user mask */
	int sample_id_all;
	int use_clockid;
	int32_t clockid;
	const uint64_t *ids;        /* its sample ids (unaligned reads: use memcpy) */
	size_t n_ids;
};

struct perf_data {
	const uint8_t *buf;
	size_t size;
	struct perf_attr *attrs;    /* malloc'd */
	size_t n_attrs;
	size_t data_off, data_end;  /* the data section */
	size_t pos;                 /* the next record (perf_data_next) */
	size_t records;             /* records seen so far */
	char err[160];              /* why the last call failed */
};

struct perf_sample {
	size_t rec;                 /* the record's offset in the buffer */
	const struct perf_attr *attr;
	uint16_t misc;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t ip;
	int has_ip;
	size_t chain;               /* offset of ips[0], or 0: no callchain */
	uint64_t chain_nr;
	int has_regs;               /* user registers with SP and IP */
	uint64_t user_sp, user_ip;
	size_t stack;               /* offset of the user stack's copy, or 0 */
	uint64_t stack_len;         /* its bytes that hold data (dyn_size) */
};

/* Checks the header and reads the attributes of buf[0..size).  0, or -1
 * with pd->err set.  perf_data_release frees what it allocated. */
int perf_data_open(struct perf_data *pd, const uint8_t *buf, size_t size);
void perf_data_release(struct perf_data *pd);
/* The next PERF_RECORD_SAMPLE into *s: 1, 0 at the end of the data, or -1
 * with pd->err set (a torn or corrupt record, or one not handled). */
int perf_data_next(struct perf_data *pd, struct perf_sample *s);

/* Marks, in buf (the same file as pd's), every PERF_RECORD_FORK of a
 * process that then execs with perf's PERF_RECORD_MISC_FORK_EXEC, so that
 * perf does not copy the parent's mappings into it: they would outlive the
 * exec (perf never drops a mapping), and a library the parent had mapped
 * lower (`fntrace record`'s libc) would move the one the program maps,
 * whose CFI perf's unwinder then does not find.  A FORK is paired with
 * the exec that follows it in time (the times of their sample_ids), as perf
 * pairs them, not in the file: the two may lie in different CPUs' parts of
 * it in either order.  The records it marks. */
size_t perf_data_mark_fork_exec(struct perf_data *pd, uint8_t *buf);

/* Back to the first record. */
void perf_data_rewind(struct perf_data *pd);

uint64_t pd_u64(const uint8_t *p);
void pd_put_u64(uint8_t *p, uint64_t v);

#endif
