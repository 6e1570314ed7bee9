/*
 * fuzz-reader.c - libFuzzer target for the trace reader.
 *
 * The input is one .fnt image.  It is opened with trace_open_buffer(); if it
 * opens, both walks (thread by thread, and merged in time order) run with a
 * callback that reads every field of every event, so that a bad pointer or
 * an uninitialised value shows up under ASan/UBSan (MSan-ready too), and the
 * per-process and per-thread results are read as well.
 *
 * `make fuzz-smoke` seeds the corpus with tests/fuzz/make-corpus.py, which
 * also copies tests/fuzz/regress/ (inputs that once crashed the reader) into
 * it, so every smoke run replays them first.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "format/reader.h"

static volatile uint64_t sink;

/* The Makefile builds this with -fsanitize=undefined but without
 * -fno-sanitize-recover: make every UBSan report fatal, so that libFuzzer
 * sees it as a crash and saves the input (instead of a line on stderr). */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

static int touch(void *ctx, const struct trace_event *ev)
{
	uint64_t *n = ctx;
	const struct trace *t = ev->thread->proc->trace;
	uint64_t h = ev->kind;
	h = h * 31 + ev->ns + ev->addr + ev->callsite + ev->callsite_vaddr + ev->count;
	h = h * 31 + ev->callsite_file + ev->thread->serial + ev->thread->tid + ev->thread->events;
	h += (uint64_t)strlen(ev->thread->name);   /* NUL-terminated within name[17] */
	if (ev->kind == TRACE_ENTRY || ev->kind == TRACE_EXIT) {
		if (ev->func >= t->n_funcs)
			__builtin_trap();
		const struct trace_func *f = &t->funcs[ev->func];
		h += f->vaddr;
		if (f->file != TRACE_NO_FILE) {
			if (f->file >= t->n_files)
				__builtin_trap();
			h += strlen(t->files[f->file].path) + t->files[f->file].build_id_len;
		}
	}
	if (ev->callsite && ev->callsite_file != TRACE_NO_FILE && ev->callsite_file >= t->n_files)
		__builtin_trap();
	sink += h;
	/* stop a pathological input from walking forever (each call is cheap) */
	return ++*n > 4000000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace *t = NULL;
	char err[256];
	if (trace_open_buffer(&t, data, size, err, sizeof(err))) {
		sink += strlen(err);
		return 0;
	}
	for (size_t i = 0; i < t->n_warnings; i++)
		sink += strlen(t->warnings[i]);
	for (size_t i = 0; i < t->n_procs; i++) {
		const struct trace_process *p = &t->procs[i];
		for (int k = 0; k < p->argc; k++)
			sink += strlen(p->argv[k]);
		for (size_t k = 0; k < p->n_modules; k++) {
			const struct trace_module *m = &p->modules[k];
			if (m->file >= t->n_files)
				__builtin_trap();
			sink += m->bias + m->lo + m->hi + m->load_ns + m->unload_ns + (uint64_t)m->at_start;
			sink += strlen(t->files[m->file].path);
			/* the module index (format/reader-modules.c) */
			sink += trace_module_at(p, m->lo, m->load_ns) != NULL;
			sink += trace_module_at(p, m->hi - 1, m->unload_ns) != NULL;
		}
		/* the argument specs' hash: each one found, as the first of its
		 * address, and a missing address not */
		for (size_t k = 0; k < p->n_argspecs; k++) {
			const char *text = trace_argspec(p, p->argspecs[k].addr);
			if (!text || (k && p->argspecs[k - 1].addr == p->argspecs[k].addr ? 0 : text != p->argspecs[k].text))
				__builtin_trap();
			sink += strlen(text);
		}
		if (p->n_argspecs && trace_argspec(p, p->argspecs[p->n_argspecs - 1].addr + 1) &&
		    p->argspecs[p->n_argspecs - 1].addr != UINT64_MAX)
			__builtin_trap();
	}
	for (int by_time = 0; by_time < 2; by_time++) {
		uint64_t n = 0;
		trace_walk(t, by_time, touch, &n);
		sink += trace_total_events(t) + (uint64_t)trace_has_function_events(t) + t->end_ns;
		sink += trace_ns_to_real(t, t->end_ns);
		for (size_t i = 0; i < t->n_procs; i++) {
			const struct trace_process *p = &t->procs[i];
			sink += p->damaged_bytes + p->damaged_chunks + p->missing_chunks;
			for (size_t k = 0; k < p->n_threads; k++) {
				const struct trace_thread *th = &p->threads[k];
				sink += th->events + th->lost + th->first_ns + th->last_ns + (uint64_t)th->ended +
					(uint64_t)th->start_depth + strlen(th->name);
			}
		}
	}
	trace_close(t);
	return 0;
}
