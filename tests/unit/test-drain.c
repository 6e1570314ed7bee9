/*
 * test-drain.c - record's copies of the drained ring (tool/record-drain.c):
 * a slot whose chunk header is not sealed yet (the runtime stores its magic
 * last, runtime/tracefile.c chunk_start) when a partial copy runs must still
 * reach the file with its magic once it is sealed; otherwise the reader
 * skips the chunk until the slot is full or the program ends, and
 * `replay --follow` shows none of the thread's calls (tests/cases/live
 * under load: phase one's end seen only after the program's 60 s wait).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fntrace.h"
#include "format/drain.h"
#include "format/format.h"
#include "tool/record-drain.h"
#include "tests/unit/check.h"
#include <sys/syscall.h>

/* record's writes to the trace file: pend_at, when set, is a head byte the
 * program stores while a copy is being written (the copier reads the slot
 * before it writes, and the program goes on meanwhile) */
static volatile uint8_t *pend_at;
static uint8_t pend_val;
ssize_t pwrite(int fd, const void *b, size_t n, off_t off)
{
	ssize_t r = syscall(SYS_pwrite64, fd, b, n, off);
	if (pend_at) {
		*pend_at = pend_val;
		pend_at = NULL;
	}
	return r;
}

#define CHUNK 65536u

int main(void)
{
	char dir[] = "/tmp/fnt-test-drain-XXXXXX", path[256];
	struct drain d;
	struct stat st;
	if (!mkdtemp(dir) || drain_create(&d, CHUNK, 4)) {
		printf("FAIL: setup\n");
		return 1;
	}
	/* the owner's trace file: a header's room and one chunk */
	snprintf(path, sizeof(path), "%s/1-0.fnt", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, FNT_HEADER_SIZE + CHUNK) || fstat(fd, &st)) {
		printf("FAIL: trace file\n");
		return 1;
	}
	struct fnt_drain_ctl *c = d.ctl;
	strcpy(c->file_name, "1-0.fnt");
	c->file_ino = (uint64_t)st.st_ino;
	c->file_dev = (uint64_t)st.st_dev;
	c->file_set = 1;
	c->owner_pid = (int32_t)getpid();

	/* slot 0 taken by a thread, its header filled in but not sealed
	 * (as chunk_start leaves it until chunk_seal) */
	uint8_t *m = fnt_drain_slot_at(c, 0, CHUNK);
	c->slot[0].off = FNT_HEADER_SIZE;
	c->slot[0].image = c->image;
	c->slot[0].state = FNT_SLOT_WRITING;
	struct fnt_chunk_header *ch = (void *)m;
	ch->type = FNT_CHUNK_EVENTS;
	ch->thread = 0;
	ch->tid = 4242;
	ch->seq = 0;
	ch->base_ticks = 123456789;
	ch->mono_ns = 987654321;
	memcpy(ch->name, "prog", 4);
	d.last_partial_ns = 0;
	drain_poll(&d, dir, 0);            /* a partial copy here */

	/* sealed, then events (two records with a body of 18 bytes, ARGS
	 * records as -A writes): a partial copy 50 ms on */
	__atomic_store_n(&ch->magic, FNT_CHUNK_MAGIC, __ATOMIC_RELEASE);
	uint8_t head = (uint8_t)fnt_varint_pack((uint64_t)FNT_EXT_ARGS << 2 | FNT_K_EXT, 1);
	for (int r = 0; r < 2; r++) {
		uint8_t *p = m + FNT_CHUNK_HDR_SIZE + 20 * r;
		p[0] = head;
		p[1] = (uint8_t)fnt_varint_pack(18, 1);
		memset(p + 2, 0x11 + r, 18);
	}
	d.last_partial_ns = 0;
	drain_poll(&d, dir, 0);

	struct fnt_chunk_header in_file;
	uint8_t data[40];
	CHECK(pread(fd, &in_file, sizeof(in_file), FNT_HEADER_SIZE) == (ssize_t)sizeof(in_file),
	      "read the file's chunk header");
	CHECK(in_file.magic == FNT_CHUNK_MAGIC, "the file's chunk is sealed: magic %#x (the reader skips it)",
	      in_file.magic);
	CHECK(!memcmp(&in_file, ch, sizeof(in_file)), "the file's chunk header is the slot's");
	CHECK(pread(fd, data, sizeof(data), FNT_HEADER_SIZE + FNT_CHUNK_HDR_SIZE) == (ssize_t)sizeof(data) &&
	      !memcmp(data, m + FNT_CHUNK_HDR_SIZE, sizeof(data)), "the events copied so far are in the file");

	/* a third record, written as the runtime writes one with a body
	 * (fnt_put_ext): its body and length, a copy, then its head, a copy.
	 * The head must reach the file: a zero head there ends the thread's
	 * data for the reader (copies used to go on 16 bytes from the end of
	 * the last one, past it) */
	uint8_t *p3 = m + FNT_CHUNK_HDR_SIZE + 40;
	p3[1] = (uint8_t)fnt_varint_pack(30, 1);
	memset(p3 + 2, 0x33, 30);
	d.last_partial_ns = 0;
	drain_poll(&d, dir, 0);
	/* only whole records go to the file: a record not whole yet is in it
	 * as zeros (its bytes copied without the rest, as an event stored
	 * while the copy read the slot could be, stayed there when record and
	 * the program were killed together, and read as damage: group-kill) */
	uint8_t part[32], none[32] = { 0 };
	CHECK(pread(fd, part, sizeof(part), FNT_HEADER_SIZE + FNT_CHUNK_HDR_SIZE + 40) == (ssize_t)sizeof(part) &&
	      !memcmp(part, none, sizeof(part)), "a record not whole yet is not copied: %#x %#x", part[0], part[1]);
	__atomic_store_n(p3, head, __ATOMIC_RELEASE);
	d.last_partial_ns = 0;
	drain_poll(&d, dir, 0);
	uint8_t rec[32];
	memset(rec, 0xee, sizeof(rec));
	ssize_t got3 = pread(fd, rec, sizeof(rec), FNT_HEADER_SIZE + FNT_CHUNK_HDR_SIZE + 40);
	CHECK(got3 == (ssize_t)sizeof(rec) && rec[0] == head,
	      "a record's head written after its body is in the file: %#x", rec[0]);
	CHECK(!memcmp(rec, p3, sizeof(rec)), "the record is the slot's");

	/* a fourth, the same, but its head stored while the copy that read it
	 * zero is written, then four more records: the next copy must still
	 * go back to it (the resume point was worked out after the copy, from
	 * the slot, which had the head by then) */
	uint8_t *p4 = m + FNT_CHUNK_HDR_SIZE + 72;
	p4[1] = (uint8_t)fnt_varint_pack(18, 1);
	memset(p4 + 2, 0x44, 18);
	pend_at = p4;
	pend_val = head;
	d.last_partial_ns = 0;
	drain_poll(&d, dir, 0);
	for (int r = 1; r < 5; r++) {
		uint8_t *p = p4 + 20 * r;
		p[1] = (uint8_t)fnt_varint_pack(18, 1);
		memset(p + 2, 0x44 + r, 18);
		p[0] = head;
	}
	d.last_partial_ns = 0;
	drain_poll(&d, dir, 0);
	memset(rec, 0xee, sizeof(rec));
	ssize_t got = pread(fd, rec, 20, FNT_HEADER_SIZE + FNT_CHUNK_HDR_SIZE + 72);
	CHECK(got == 20 && rec[0] == head && !memcmp(rec, p4, 20),
	      "a head stored while its copy was written is in the file: %#x", rec[0]);

	close(fd);
	drain_close(&d);
	unlink(path);
	rmdir(dir);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
