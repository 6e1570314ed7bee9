/*
 * record-drain.h - `fntrace record` drains the program's ring of event
 * chunks into the trace files (tool/record-drain.c, format/drain.h).
 */
#ifndef FNT_RECORD_DRAIN_H
#define FNT_RECORD_DRAIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct fnt_drain_ctl;
struct fnt_file_header;

struct drain {
	struct fnt_drain_ctl *ctl;   /* NULL: no ring (the runtime maps its file) */
	size_t len;
	uint32_t chunk_size;
	int fd;                      /* the memfd */
	int file_fd;                 /* the owner's trace file, once known */
	struct fnt_file_header *hdr; /* its header, mapped once a slot could not be written */
	int write_error;
	uint64_t chunks;             /* slots copied out */
	uint64_t polls;              /* polls while the program ran */
	uint32_t writing;            /* slots being written at the last poll */
	uint64_t last_partial_ns;    /* when the slots being written were last copied */
	uint8_t *buf;                /* one chunk: a partial copy is read into it */
	uint32_t copied[224];        /* per slot: bytes of it copied so far (FNT_DRAIN_MAX_SLOTS) */
	uint32_t high[224];          /* per slot: the end of what partial copies put in the file */
	uint32_t walked[224];        /* per slot: the end of its whole records seen so far (0: its header's) */
};

/* a ring of n_slots chunks; 0, or -1 (then record goes on without one) */
int drain_create(struct drain *d, uint32_t chunk_size, uint32_t n_slots);
/* in the child before exec: hand the ring over (FNTRACE_DRAIN_FD) */
void drain_child(struct drain *d);
/* copy the slots that are done (final: all of them) into the trace file in
 * dir; returns how many were copied */
int drain_poll(struct drain *d, const char *dir, int final);
/* waitpid(child) while draining; then the last copy.  0, or -1 (errno) */
int drain_wait(struct drain *d, const char *dir, pid_t child, int *status);
void drain_close(struct drain *d);

#endif
