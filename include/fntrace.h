/*
 * fntrace.h - the public header of the fntrace runtime (libfntrace).
 *
 * Programs built with -finstrument-functions are traced without any change:
 * `fntrace record -- ./prog` preloads libfntrace.so.  A program can also link
 * the runtime directly (`-L<libdir> -lfntrace`) and is then configured by the
 * environment variables below, which `fntrace record` sets for you.
 */
#ifndef FNTRACE_H
#define FNTRACE_H

/* Environment knobs read once at start-up by the runtime. */
#define FNTRACE_ENV_DIR        "FNTRACE_DIR"        /* trace directory (default ./fntrace.data) */
#define FNTRACE_ENV_CALLSITE   "FNTRACE_CALLSITE"   /* 1: also record each call's return site */
#define FNTRACE_ENV_CHUNK_SIZE "FNTRACE_CHUNK_SIZE" /* bytes per buffer chunk (16K..64M, default 256K) */
#define FNTRACE_ENV_CLOCK      "FNTRACE_CLOCK"      /* tsc | monotonic (default: tsc when the kernel trusts it) */
#define FNTRACE_ENV_DISABLE    "FNTRACE_DISABLE"    /* 1: load but record nothing */
#define FNTRACE_ENV_ARGS       "FNTRACE_ARGS"       /* -A/-R specs: "GLOB@ITEMS;GLOB@ITEMS" (doc/args.md) */
#define FNTRACE_ENV_ARGS_FILE  "FNTRACE_ARGS_FILE"  /* the same specs in a file, one per line (--auto-args) */
#define FNTRACE_ENV_PATCH      "FNTRACE_PATCH"      /* -fpatchable-function-entry: globs of the functions to patch ("a*;b") */
#define FNTRACE_ENV_PATCH_SIGNAL "FNTRACE_PATCH_SIGNAL" /* -fpatchable-function-entry: start unpatched, SIG number toggles */
#define FNTRACE_ENV_SHADOW_DEPTH "FNTRACE_SHADOW_DEPTH" /* -pg -mfentry: frames traced per thread (default 65536) */
#define FNTRACE_ENV_PREFAULT   "FNTRACE_PREFAULT"   /* 1: a helper thread prepares chunks ahead (default off) */
/* record-time filters, one "KEY VALUE" per line (fntrace record -F/-N/-D/-t/
 * --module/--no-thread write it): F GLOB, N GLOB, D DEPTH, t NANOSECONDS,
 * m MODULE-GLOB, T THREAD-NAME-GLOB.  See doc/filters-and-live.md. */
#define FNTRACE_ENV_FILTERS    "FNTRACE_FILTERS"

#ifdef __cplusplus
extern "C" {
#endif

/* The compiler's hooks, exported by the runtime. */
void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site);

/* -fpatchable-function-entry builds: patch (on != 0) or unpatch the selected
 * functions' pads now, safely while other threads run (doc/args.md).
 * 0 when done; -1 when there is nothing to patch or the switch could not be
 * made (the pads then stay as they were).  Not from a signal handler. */
int fnt_patch(int on);

#ifdef __cplusplus
}
#endif

#endif
