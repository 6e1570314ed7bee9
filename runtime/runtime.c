/*
 * runtime.c - the runtime's start-up and exit: the settings read from the
 * environment (FNTRACE_*), the process's trace file created, the hooks for
 * fork and exit installed; at exit, the last records and the end of the
 * file header.  The rest lives beside it: tracefile.c (the file and its
 * chunks), slowpath.c (the hooks' slow paths), threads.c, fork.c, setjmp.c
 * and clock.c.
 *
 * The runtime never exits, aborts or blocks its host: when something fails
 * (no disk space, no file) it stops recording on that thread and counts the
 * events it drops in the file header.
 */
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "fntrace.h"
#include "runtime/runtime-internal.h"

uint32_t fnt_flags FNT_HIDDEN;
int fnt_use_tsc FNT_HIDDEN;
uint32_t fnt_fast_off FNT_HIDDEN = FNT_FAST_NO_TSC;
uint32_t fnt_off_epoch FNT_HIDDEN;
uint32_t fnt_ring_chunks FNT_HIDDEN;
uint32_t fnt_file_gen FNT_HIDDEN;
FNT_EXPORT volatile int fnt__active;

int state;                     /* 0 not yet, 1 recording, 2 off */

#ifdef FNT_STATIC_ARCHIVE
/* A note that says a static program carries the runtime (linked with
 * libfntrace.a): it traces itself, so exec.c does not count it as
 * untraced.  Named .note.*, the section is SHT_NOTE, which the linker puts
 * in a PT_NOTE segment.  (Only here: a program linked with libfntrace.so
 * has a loader, and the shared library keeps the layout perf has seen.) */
static const struct {
	uint32_t namesz, descsz, type;
	char name[8];
} runtime_note __attribute__((used, section(".note.fntrace"), aligned(4))) = { 8, 0, 1, "fntrace" };
#endif
unsigned fnt_file_mode = 0600;

/* no thread, no losses, nothing -P noted: a file with nothing to say */
static int recorded_nothing(struct fnt_file_header *h)
{
	return __atomic_load_n(&h->next_thread, __ATOMIC_RELAXED) == 0 && !fnt_patch_noted && !fnt_header_lost(h) &&
	       !h->lost_meta;
}

/* exit() or a return from main (on_exit: with the status) */
static void at_exit(int status, void *arg)
{
	(void)arg;
	struct fnt_trace_file *tf = &main_file;
	struct fnt_thread *t = &fnt_self;
	if (state != 1 || fnt_denied(SYS_getpid) || getpid() != (pid_t)tf->pid)
		return;
	spares_close();
	if (t->state == FNT_T_ACTIVE && t->chunk && !t->busy && t->pid == tf->pid &&
	    (t->pos < t->limit || !thread_chunk_start(t))) {
		t->busy = FNT_BUSY_RUNTIME;
		put_lost(t);
		put_thread_name(t);
		put_thread_end(t);
		/* late events (other exit handlers) still land here, after the end
		 * record: keep the mapping, give back all but a page of the tail */
		if (!fnt_drain_owns(t->chunk))
			punch_tail(t->chunk_off, (uintptr_t)(t->pos - t->chunk) + 4096);
		t->busy = 0;
	}
	if (tf->meta_chunk && !meta_lock_take()) {
		punch_tail(tf->meta_chunk_off, (uintptr_t)(tf->meta_pos - tf->meta_chunk) + 4096);
		__atomic_store_n(&tf->meta_lock, 0, __ATOMIC_RELEASE);
	}
	fnt_drain_exit();
	clock_sample(&tf->hdr->end_ticks, &tf->hdr->end_mono, &tf->hdr->end_real);
	/* a process image that recorded no thread (a shell, an uninstrumented
	 * program) leaves no file behind, unless it says what -P left alone or
	 * counts events it could not record */
	if (recorded_nothing(tf->hdr)) {
		if (!fnt_denied(SYS_unlink))
			unlink(tf->path);
		return;
	}
	tf->hdr->exit_status = (uint32_t)status;
	__atomic_store_n(&tf->hdr->end_flags, FNT_END_EXIT | FNT_END_STATUS, __ATOMIC_RELEASE);
}

/* _exit(), _Exit() and syscall(SYS_exit_group) end the process without its
 * exit handlers, so at_exit never marks the file: the wrappers below mark
 * it here (end_flags bit 1, the status, which call), so that `info` says
 * "exited with N (_exit)" rather than "no clean exit".  Only the image
 * that owns the file marks it: a vfork child writes its own file or none
 * (its parent's header is not its to mark).  No system call but getpid in
 * a thread with no clock (seccomp strict allows none). */
void fnt_exit_note(int status, unsigned how)
{
	struct fnt_trace_file *tf = cur_file();
	struct fnt_file_header *h = tf->hdr;
	if (state != 1 || fnt_no_clock || !h || (uint32_t)fnt_sys3(SYS_getpid, 0, 0, 0) != tf->pid ||
	    (h->end_flags & 3))
		return;
	if (tf == &main_file) {
		spares_close();
		fnt_drain_exit();       /* record gone: the slots being written go to the file now */
	}
	clock_sample(&h->end_ticks, &h->end_mono, &h->end_real);
	h->exit_status = (uint32_t)status;
	if (recorded_nothing(h) && tf == &main_file) {
		if (!fnt_denied(SYS_unlink))
			unlink(tf->path);       /* recorded nothing (as at_exit) */
		return;
	}
	__atomic_store_n(&h->end_flags, FNT_END_EXIT_CALL | how << FNT_END_HOW_SHIFT, __ATOMIC_RELEASE);
}

/* exec is about to replace the image (on 1), or failed (on 0): the file
 * says so (end_flags FNT_END_EXEC), whether or not the next image leaves
 * a file (one that records nothing removes its own at exit), so that
 * `info` says "replaced by exec" rather than "no clean exit".  Only the
 * image that owns the file (not a vfork child, which writes its own or
 * none); getpid is the only system call. */
void fnt_exec_note(int on)
{
	struct fnt_trace_file *tf = cur_file();
	struct fnt_file_header *h = tf->hdr;
	if (state != 1 || !h || (uint32_t)fnt_sys3(SYS_getpid, 0, 0, 0) != tf->pid)
		return;
	if (on)
		__atomic_fetch_or(&h->end_flags, FNT_END_EXEC, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&h->end_flags, ~FNT_END_EXEC, __ATOMIC_RELEASE);
}

#ifndef FNT_STATIC_ARCHIVE
/* glibc's _exit is the exit_group system call (and exit if that returns):
 * the same, without looking the real one up (a vfork child may call it) */
static __attribute__((noreturn)) void exit_now(int status)
{
	for (;;) {
		fnt_sys3(SYS_exit_group, status, 0, 0);
		fnt_sys3(SYS_exit, status, 0, 0);
	}
}

FNT_EXPORT __attribute__((noreturn)) void _exit(int status)
{
	fnt_exit_note(status, FNT_END_HOW_EXIT);
	exit_now(status);
}

FNT_EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	fnt_exit_note(status, FNT_END_HOW_EXIT2);
	exit_now(status);
}
#endif

#ifndef FNT_STATIC_ARCHIVE
/* the program's PT_NOTE segments, as loaded: 1 if one is the archive's */
static int main_note(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE &&
		    fnt_runtime_note_in((const unsigned char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr),
					info->dlpi_phdr[i].p_memsz))
			*(int *)data = 1;
	return 1;       /* (the program is the first object) */
}

/* The program was linked with libfntrace.a: it records itself, and this
 * copy of the runtime, preloaded (so that the programs it execs are
 * traced), stands aside, as in a setuid program */
static int program_carries_runtime(void)
{
	int found = 0;
	dl_iterate_phdr(main_note, &found);
	return found;
}
#endif

void runtime_init(void)
{
	struct fnt_trace_file *tf = &main_file;
	const char *env;
	size_t len;

	if (state)
		return;
	state = 2;
	fnt_xstate_init();
	fnt_fork_mask_init();
	if (fnt_secure_exec())          /* setuid & co: the caller's settings are not to be trusted */
		return;
#ifndef FNT_STATIC_ARCHIVE
	if (program_carries_runtime())
		return;
#endif
	fnt_environ_early();
	env = getenv(FNTRACE_ENV_DISABLE);
	if (env && *env && strcmp(env, "0"))
		return;
	fnt_use_tsc = tsc_usable();
	fnt_filter_init();
	if (getenv(FNTRACE_ENV_CALLSITE) && strcmp(getenv(FNTRACE_ENV_CALLSITE), "0"))
		fnt_flags |= FNT_FLAG_CALLSITE;
	{
		/* the bits set at start-up; an fnt_disable() before (a
		 * constructor's) stays */
		uint32_t want = (fnt_flags & FNT_FLAG_CALLSITE ? FNT_FAST_CALLSITE : 0) |
				(fnt_filtering ? FNT_FAST_FILTER : 0) | (fnt_use_tsc ? 0 : FNT_FAST_NO_TSC);
		uint32_t old = __atomic_load_n(&fnt_fast_off, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&fnt_fast_off, &old, (old & (FNT_FAST_PAUSED | FNT_FAST_ARGS)) | want,
						    0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			;
	}
	env = getenv(FNTRACE_ENV_RING);
	if (env && *env) {
		unsigned long v = strtoul(env, NULL, 0);
		if (v >= 2) {
			fnt_ring_chunks = v > FNT_RING_MAX ? FNT_RING_MAX : (uint32_t)v;
			fnt_flags |= FNT_FLAG_RING;
		}
	}
	fnt_argspec_init();
	fnt_libcall_init();
	if (fnt_argspec_wanted())
		fnt_flags |= FNT_FLAG_ARGS;
	env = getenv(FNTRACE_ENV_CHUNK_SIZE);
	if (env && *env) {
		unsigned long v = strtoul(env, NULL, 0);
		if (v >= FNT_MIN_CHUNK && v <= FNT_MAX_CHUNK)
			chunk_size = (uint32_t)(v & ~4095ul);
	} else {
		chunk_size = fnt_fsize_chunk(chunk_size);
	}
	env = getenv(FNTRACE_ENV_MODE);
	if (env && *env) {
		unsigned long v = strtoul(env, NULL, 8);
		if ((v & 0600) == 0600 && !(v & ~0644ul))
			fnt_file_mode = (unsigned)v;
	}
	env = getenv(FNTRACE_ENV_DIR);
	int standalone = !env || !*env;
	if (standalone) {
		/* linked with -lfntrace and run on its own: a new trace, not one
		 * mixed into an earlier run's (rotate.c), which the children of
		 * this run then join through FNTRACE_DIR */
		env = "fntrace.data";
		if (fnt_rotate_default(env)) {
			static const char msg[] = "fntrace: './fntrace.data' holds files that are not an earlier "
				"trace's, or a running 'fntrace record' holds it; not recording (set FNTRACE_DIR)\n";
			(void)!write(2, msg, sizeof(msg) - 1);
			return;
		}
	}
	len = strlen(env);
	if (len >= sizeof(trace_dir) - 64)
		return;
	if (env[0] != '/' && getcwd(trace_dir, sizeof(trace_dir) - len - 64)) {
		strcat(trace_dir, "/");
		strcat(trace_dir, env);
	} else {
		memcpy(trace_dir, env, len + 1);
	}
	tf->pid = (uint32_t)getpid();
	if (standalone)
		setenv(FNTRACE_ENV_DIR, trace_dir, 1);
	if (file_open(tf, NULL, 0)) {
		/* the one message the runtime ever prints, at start-up */
		char msg[4400];
		int n = snprintf(msg, sizeof(msg), "fntrace: cannot create a trace file in '%s': %s; not recording\n",
				 trace_dir, strerror(errno));
		if (n > 0)
			(void)!write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
		return;
	}
	if (pthread_key_create(&thread_key, thread_exit_cb))
		return;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	on_exit(at_exit, NULL);
	if (!fnt_ring_chunks)           /* a flight recorder rewrites its chunks in the file */
		fnt_drain_attach(chunk_size, tf->path, (uint64_t)tf->ino, (uint64_t)tf->dev);
	state = 1;
	fnt__active = !fnt_paused();
	fnt_filter_write_meta();
	if (fnt_paused())       /* an fnt_disable() before (a constructor's) */
		fnt_recording_note();
	fnt_modules_scan();
#ifndef FNT_STATIC_ARCHIVE
	{
		/* plugins recorded (library calls hooked, pads patched,
		 * prologues moved) before their constructors run */
		char **globs;
		if (fnt_patch_globs(&globs) || fnt_libcall_on())
			fnt_modules_watch_loads();
	}
#endif
	fnt_snapshot_signal_init();
	fnt_trace_signals_init();
	fnt_exec_init(trace_dir);
	fnt_tls_owner_init();
}

__attribute__((constructor)) static void runtime_ctor(void)
{
	struct fnt_thread *t = &fnt_self;
	if (t->busy)
		return;
	t->busy = FNT_BUSY_RUNTIME;
	runtime_init();                 /* nothing if a hook got there first */
	helper_start();
	t->busy = 0;
}
