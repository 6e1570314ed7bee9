/* perf-data: reading perf.data (tool/perf-data.h) on small files made here
 * in perf's documented layout: the samples of `perf record -g` (frame
 * pointers) and of `--call-graph dwarf` (user registers and a copy of the
 * stack), where their callchain and stack words lie, and every kind of
 * damage: each truncation of the data, each byte set to 0xff, record sizes
 * that lie, a pipe-mode file, the other byte order, compressed records.
 * Each must give a reason, never a read out of bounds (the ASan build). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include "tool/perf-data.h"

#define ATTR_SIZE 120                   /* perf_event_attr as perf 6.1 writes it */
#define ENTRY (ATTR_SIZE + 16)          /* perf_file_attr: the attr and its ids section */
#define TRAMP 0x7f0000001ae4full

static uint8_t file[16384];
static size_t len;

static void put64(size_t at, uint64_t v) { memcpy(file + at, &v, 8); }
static void put32(size_t at, uint32_t v) { memcpy(file + at, &v, 4); }
static void put16(size_t at, uint16_t v) { memcpy(file + at, &v, 2); }

static size_t rec_start;
static size_t w;                        /* write position */

static void u64(uint64_t v) { put64(w, v); w += 8; }
static void begin_record(uint32_t type) { rec_start = w; put32(w, type); put16(w + 4, 2); w += 8; }
static void end_record(void) { put16(rec_start + 6, (uint16_t)(w - rec_start)); }

/* the header and one attribute per sample_type given; the data follows */
static void header(const uint64_t *types, size_t n, uint64_t regs)
{
	memset(file, 0, sizeof(file));
	memcpy(file, "PERFILE2", 8);
	put64(8, 104);
	put64(16, ENTRY);
	put64(24, 104);                 /* attrs */
	put64(32, n * ENTRY);
	for (size_t i = 0; i < n; i++) {
		size_t a = 104 + i * ENTRY;
		put32(a, 1);            /* PERF_TYPE_SOFTWARE */
		put32(a + 4, ATTR_SIZE);
		put64(a + 24, types[i]);
		put64(a + 40, 1ull << 18 | 1ull << 25);   /* sample_id_all, use_clockid */
		put64(a + 80, regs);
		put32(a + 92, 1);       /* CLOCK_MONOTONIC */
	}
	w = 104 + n * ENTRY;
	put64(40, w);                   /* data */
}

static void end_data(void)
{
	uint64_t data;
	memcpy(&data, file + 40, 8);
	put64(48, w - data);
	len = w;
}

#define FP_TYPE (PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_PERIOD | PD_SAMPLE_CALLCHAIN)
#define DW_TYPE (FP_TYPE | PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER)
#define REGS ((1ull << 6) | (1ull << PD_REG_SP) | (1ull << PD_REG_IP))   /* bp, sp, ip */

/* the header of two events, with ids 11 and 22; the data follows */
static void two_events(const uint64_t types[2])
{
	header(types, 2, 0);
	size_t ids = w;
	u64(11);
	u64(22);
	put64(104 + ATTR_SIZE, ids);             /* event 0: id 11 */
	put64(104 + ATTR_SIZE + 8, 8);
	put64(104 + ENTRY + ATTR_SIZE, ids + 8); /* event 1: id 22 */
	put64(104 + ENTRY + ATTR_SIZE + 8, 8);
	put64(40, w);
}

static size_t chain_at, stack_at;

/* perf record -g: an mmap record, a sample in leaf with a swapped caller */
static void fp_file(void)
{
	uint64_t t = FP_TYPE;
	header(&t, 1, 0);
	begin_record(10);               /* an MMAP2, passed over */
	for (int i = 0; i < 9; i++)
		u64(0x1111);
	end_record();
	begin_record(PD_RECORD_SAMPLE);
	u64(0x401136);                  /* ip */
	put32(w, 100);                  /* pid, tid */
	put32(w + 4, 101);
	w += 8;
	u64(5000000123ull);             /* time */
	u64(250000);                    /* period */
	u64(5);                         /* callchain: the kernel's, then the user's */
	u64((uint64_t)-128);
	u64(0xffffffff81000000ull);
	u64(PD_CONTEXT_USER);
	chain_at = w;
	u64(0x401136);
	u64(TRAMP);
	end_record();
	end_data();
}

/* --call-graph dwarf: registers and 64 bytes of stack, 48 of them valid */
static void dwarf_file(void)
{
	uint64_t t = DW_TYPE;
	header(&t, 1, REGS);
	begin_record(PD_RECORD_SAMPLE);
	u64(0x401136);
	put32(w, 100);
	put32(w + 4, 102);
	w += 8;
	u64(7);
	u64(250000);
	u64(0);                         /* no callchain entries */
	u64(2);                         /* abi 64 */
	u64(0x7ffc0100);                /* bp */
	u64(0x7ffc0000);                /* sp */
	u64(0x401140);                  /* ip */
	u64(64);
	stack_at = w;
	for (int i = 0; i < 8; i++)
		u64(i == 3 ? TRAMP : 0x1000 + (uint64_t)i);
	u64(48);                        /* dyn_size */
	end_record();
	end_data();
}

/* every sample of the file, or the reason it stops: 1 read whole, -1 refused */
static int read_all(const uint8_t *buf, size_t n, size_t *samples, char *why, size_t why_len)
{
	struct perf_data pd;
	struct perf_sample s;
	int r;
	*samples = 0;
	if (perf_data_open(&pd, buf, n)) {
		snprintf(why, why_len, "%s", pd.err);
		perf_data_release(&pd);
		return -1;
	}
	while ((r = perf_data_next(&pd, &s)) == 1) {
		(*samples)++;
		/* what a reader then touches must lie in the buffer */
		if (s.chain)
			CHECK(s.chain + s.chain_nr * 8 <= n, "the callchain lies in the file");
		if (s.stack)
			CHECK(s.stack + s.stack_len <= n, "the stack copy lies in the file");
	}
	snprintf(why, why_len, "%s", r ? pd.err : "");
	perf_data_release(&pd);
	return r ? -1 : 1;
}

static void refused(const char *what, const char *want)
{
	size_t n;
	char why[200];
	int r = read_all(file, len, &n, why, sizeof(why));
	CHECK(r == -1 && strstr(why, want), "%s: %d '%s' (want '%s')", what, r, why, want);
}

static uint16_t misc_at(size_t rec)
{
	uint16_t m;
	memcpy(&m, file + rec + 4, 2);
	return m;
}

/* the sample_id perf ends each record with (sample_id_all): pid/tid, time,
 * and with two events, the cpu for the second and the identifier */
static uint64_t id_cpu = (uint64_t)-1, id_identifier;

static void sample_id(uint32_t pid, uint64_t time)
{
	put32(w, pid), put32(w + 4, pid);
	w += 8;
	u64(time);
	if (id_cpu != (uint64_t)-1)
		u64(id_cpu);
	if (id_identifier)
		u64(id_identifier);
}

static size_t fork_rec(uint32_t pid, uint32_t ppid, uint64_t time)
{
	size_t at = w;
	begin_record(7);                /* PERF_RECORD_FORK: pid, ppid, tid, ptid, time */
	put16(rec_start + 4, 0);
	put32(w, pid), put32(w + 4, ppid), put32(w + 8, pid), put32(w + 12, ppid);
	w += 16;
	u64(time);
	sample_id(ppid, time);
	end_record();
	return at;
}

static void comm_rec(uint32_t pid, int exec, uint64_t time)
{
	begin_record(3);                /* PERF_RECORD_COMM: pid, tid, comm */
	put16(rec_start + 4, exec ? 1u << 13 : 0);
	put32(w, pid), put32(w + 4, pid);
	w += 8;
	memcpy(file + w, "prog\0\0\0\0", 8);
	w += 8;
	sample_id(pid, time);
	end_record();
}

/* `perf record -- fntrace record -- prog`: only the forks of processes that
 * then exec get PERF_RECORD_MISC_FORK_EXEC (perf then copies the parent's
 * mappings into no one), and nothing else changes.  A fork and its exec are
 * paired by time, as perf does: perf writes each CPU's buffer in turn, and
 * the exec, on another CPU than the fork, may come first in the file. */
static void fork_exec(void)
{
	static const uint64_t types[] = { FP_TYPE };
	struct perf_data pd;
	uint8_t before[sizeof(file)];
	uint64_t t = 1000;
	header(types, 1, 0);
	size_t a = fork_rec(200, 100, t++);     /* the program: exec follows */
	size_t b = fork_rec(201, 100, t++);     /* a child that does not exec */
	size_t c = fork_rec(100, 100, t++);     /* a thread (pid == ppid) */
	comm_rec(201, 0, t++);                  /* a rename (prctl), not an exec */
	comm_rec(200, 1, t++);
	size_t d = fork_rec(200, 150, t++);     /* the pid reused: a fork with no exec after it */
	comm_rec(300, 1, t++);                  /* an exec whose fork perf did not see */
	comm_rec(400, 1, 2001);                 /* an exec on CPU 0 ... */
	size_t f = fork_rec(400, 100, 2000);    /* ... of a fork on CPU 1, written after it */
	size_t g = fork_rec(500, 100, 2012);    /* the pid reused, its fork written first */
	comm_rec(500, 1, 2011);
	size_t h = fork_rec(500, 100, 2010);
	size_t e[200];
	for (unsigned i = 0; i < 200; i++)      /* (the pending table grows) */
		e[i] = fork_rec(1000 + i, 100, t++);
	for (unsigned i = 0; i < 200; i += 2)
		comm_rec(1000 + i, 1, t++);
	end_data();
	memcpy(before, file, len);
	CHECK(perf_data_open(&pd, file, len) == 0, "open: %s", pd.err);
	CHECK(perf_data_mark_fork_exec(&pd, file) == 103, "103 forks marked");
	CHECK(misc_at(a) == 1u << 13 && !misc_at(b) && !misc_at(c) && !misc_at(d), "the program's fork only");
	CHECK(misc_at(f) == 1u << 13, "a fork written after its exec");
	CHECK(misc_at(h) == 1u << 13 && !misc_at(g), "the fork before the exec in time, not in the file");
	int evens = 1;
	for (unsigned i = 0; i < 200; i++)
		evens &= misc_at(e[i]) == (i % 2 ? 0 : 1u << 13);
	CHECK(evens, "the 100 that exec'd of 200 more");
	size_t diff = 0;
	for (size_t i = 0; i < len; i++)
		diff += file[i] != before[i];
	CHECK(diff == 103, "one byte of each marked record changed, no other: %zu", diff);
	CHECK(perf_data_mark_fork_exec(&pd, file) == 0, "marked once");
	perf_data_release(&pd);

	/* without sample_id_all the records have no time: perf takes them in
	 * the file's order, and so does this */
	memcpy(file, before, len);
	put64(104 + 40, 1ull << 25);
	CHECK(perf_data_open(&pd, file, len) == 0, "open: %s", pd.err);
	CHECK(perf_data_mark_fork_exec(&pd, file) == 102, "102 forks marked in the file's order");
	CHECK(misc_at(a) == 1u << 13 && !misc_at(f) && misc_at(g) == 1u << 13 && !misc_at(h), "the file's order");
	perf_data_release(&pd);

	/* two events whose sample_ids differ (the second has the cpu): each
	 * record's time read where its own event puts it */
	uint64_t two[2] = { FP_TYPE | PD_SAMPLE_IDENTIFIER, FP_TYPE | PD_SAMPLE_CPU | PD_SAMPLE_IDENTIFIER };
	two_events(two);
	id_identifier = 11;
	comm_rec(600, 1, 3001);
	id_cpu = 3005;                          /* (read as the time, it would follow the exec) */
	id_identifier = 22;
	f = fork_rec(600, 100, 3000);
	id_cpu = (uint64_t)-1;
	id_identifier = 0;
	end_data();
	CHECK(perf_data_open(&pd, file, len) == 0, "open: %s", pd.err);
	CHECK(perf_data_mark_fork_exec(&pd, file) == 1 && misc_at(f) == 1u << 13, "two events: the fork marked");
	perf_data_release(&pd);
}

int main(void)
{
	struct perf_data pd;
	struct perf_sample s;
	char why[200];
	size_t n;

	/* frame pointers */
	fp_file();
	CHECK(perf_data_open(&pd, file, len) == 0, "open: %s", pd.err);
	CHECK(pd.n_attrs == 1 && pd.attrs[0].sample_id_all && pd.attrs[0].use_clockid && pd.attrs[0].clockid == 1,
	      "the attribute");
	CHECK(perf_data_next(&pd, &s) == 1, "the sample: %s", pd.err);
	CHECK(s.pid == 100 && s.tid == 101 && s.time == 5000000123ull && s.has_ip && s.ip == 0x401136, "its fields");
	CHECK(s.chain && s.chain_nr == 5 && pd_u64(file + s.chain + 2 * 8) == PD_CONTEXT_USER, "its callchain");
	CHECK(s.chain + 4 * 8 == chain_at + 8 && pd_u64(file + s.chain + 4 * 8) == TRAMP, "the swapped frame");
	CHECK(!s.stack && !s.has_regs, "no stack copy");
	CHECK(perf_data_next(&pd, &s) == 0, "then the end: %s", pd.err);
	CHECK(pd.records == 2, "two records");
	perf_data_release(&pd);

	/* DWARF */
	dwarf_file();
	CHECK(perf_data_open(&pd, file, len) == 0 && perf_data_next(&pd, &s) == 1, "dwarf: %s", pd.err);
	CHECK(s.has_regs && s.user_sp == 0x7ffc0000 && s.user_ip == 0x401140, "the registers");
	CHECK(s.stack == stack_at && s.stack_len == 48 && pd_u64(file + s.stack + 24) == TRAMP, "the stack copy");
	CHECK(s.chain && s.chain_nr == 0, "an empty callchain");
	perf_data_release(&pd);

	/* two events told apart by PERF_SAMPLE_IDENTIFIER */
	{
		uint64_t types[2] = { FP_TYPE | PD_SAMPLE_IDENTIFIER, PD_SAMPLE_IDENTIFIER | PD_SAMPLE_TID };
		two_events(types);
		size_t data = w;
		begin_record(PD_RECORD_SAMPLE);
		u64(22);
		put32(w, 7);
		put32(w + 4, 8);
		w += 8;
		end_record();
		begin_record(PD_RECORD_SAMPLE);
		u64(11);
		u64(0x401000);
		put32(w, 7);
		put32(w + 4, 9);
		w += 8;
		u64(1);
		u64(1);
		u64(1);
		u64(0x401000);
		end_record();
		put64(48, w - data);
		len = w;
		CHECK(perf_data_open(&pd, file, len) == 0, "two events: %s", pd.err);
		CHECK(perf_data_next(&pd, &s) == 1 && s.tid == 8 && !s.chain && s.attr == &pd.attrs[1], "event 1's");
		CHECK(perf_data_next(&pd, &s) == 1 && s.tid == 9 && s.chain_nr == 1 && s.attr == &pd.attrs[0],
		      "event 0's");
		perf_data_release(&pd);
		put64(data + 8, 33);
		refused("an id of no event", "belongs to no event");
	}

	/* every truncation of the data section (the header saying so), and of
	 * the file itself */
	dwarf_file();
	size_t data_off = 104 + ENTRY, whole = len;
	for (size_t cut = 0; cut < whole - data_off; cut++) {
		put64(48, cut);
		int r = read_all(file, whole, &n, why, sizeof(why));
		CHECK(r == (cut ? -1 : 1) && n == 0, "data cut at %zu: %d %zu '%s'", cut, r, n, why);
	}
	put64(48, whole - data_off);
	for (size_t cut = 0; cut < whole; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		memcpy(copy, file, cut);
		int r = read_all(copy, cut, &n, why, sizeof(why));
		CHECK(r == -1 && *why, "file cut at %zu: %d", cut, r);
		free(copy);
	}
	/* each byte set to 0xff, then to 0: a reason or a sample, never a crash */
	for (int pass = 0; pass < 2; pass++) {
		fp_file();
		for (size_t i = 0; i < len; i++) {
			uint8_t keep = file[i];
			file[i] = pass ? 0 : 0xff;
			read_all(file, len, &n, why, sizeof(why));
			file[i] = keep;
		}
		dwarf_file();
		for (size_t i = 0; i < len; i++) {
			uint8_t keep = file[i];
			file[i] = pass ? 0 : 0xff;
			read_all(file, len, &n, why, sizeof(why));
			file[i] = keep;
		}
	}

	/* lies */
	fp_file();
	put16(rec_start + 6, 4);
	refused("a record of 4 bytes", "corrupt record");
	fp_file();
	put64(chain_at - 3 * 8 - 8, 1000);      /* the callchain's nr */
	refused("a callchain longer than its record", "callchain");
	dwarf_file();
	put64(stack_at + 64, 65);
	refused("a stack copy that holds more than it has", "user stack");
	dwarf_file();
	put64(stack_at - 8, 1u << 20);
	refused("a stack copy larger than its record", "user stack");
	fp_file();
	put32(rec_start, 81);
	refused("compressed records", "perf record -z");
	fp_file();
	put64(8, 16);
	refused("pipe mode", "pipe-mode");
	fp_file();
	memcpy(file, "2ELIFREP", 8);
	refused("the other byte order", "byte order");
	fp_file();
	memcpy(file, "PERFILE1", 8);
	refused("not perf.data", "not a perf.data file");
	fp_file();
	put64(16, 7);
	refused("attr_size 7", "attribute section");
	fp_file();
	put64(104 + 24, FP_TYPE | 1ull << 40);
	refused("a sample_type bit not known", "fields not known here (sample_type 0x10000000127)");
	fp_file();
	put64(40, 1u << 30);
	refused("a data section outside the file", "past the end of the file");

	fork_exec();

	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
