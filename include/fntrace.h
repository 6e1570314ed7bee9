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
#define FNTRACE_ENV_DIR_ID     "FNTRACE_DIR_ID"     /* "DEV:INO:PATH" of that directory, set by record */
#define FNTRACE_ENV_USER_GROUP "FNTRACE_USER_GROUP" /* gid of the user's private group (record): its
                                                      * group-writable directories are the user's */
#define FNTRACE_ENV_MODE       "FNTRACE_MODE"       /* octal mode of trace files (default 600; dirs get x where r) */
#define FNTRACE_ENV_CALLSITE   "FNTRACE_CALLSITE"   /* 1: also record each call's return site */
#define FNTRACE_ENV_CHUNK_SIZE "FNTRACE_CHUNK_SIZE" /* bytes per buffer chunk (16K..64M, default 256K) */
#define FNTRACE_ENV_CLOCK      "FNTRACE_CLOCK"      /* tsc | monotonic (default: tsc when the kernel trusts it) */
#define FNTRACE_ENV_DISABLE    "FNTRACE_DISABLE"    /* 1: load but record nothing */
#define FNTRACE_ENV_RING       "FNTRACE_RING"       /* N: flight recorder, N chunks per thread (2..32) */
#define FNTRACE_ENV_SNAPSHOT_SIGNAL "FNTRACE_SNAPSHOT_SIGNAL" /* signal number that takes a snapshot */
#define FNTRACE_ENV_ARGS       "FNTRACE_ARGS"       /* -A/-R specs: "GLOB@ITEMS;GLOB@ITEMS" (doc/args.md) */
#define FNTRACE_ENV_ARGS_FILE  "FNTRACE_ARGS_FILE"  /* the same specs in a file, one per line (--auto-args) */
#define FNTRACE_ENV_PATCH      "FNTRACE_PATCH"      /* -fpatchable-function-entry: globs of the functions to patch ("a*;b") */
#define FNTRACE_ENV_PATCH_SCAN "FNTRACE_PATCH_SCAN" /* -P: "capstone" decodes function bodies with capstone, not Zydis (tests) */
#define FNTRACE_ENV_PATCH_SIGNAL "FNTRACE_PATCH_SIGNAL" /* -fpatchable-function-entry: start unpatched, SIG number toggles */
#define FNTRACE_ENV_SHADOW_DEPTH "FNTRACE_SHADOW_DEPTH" /* -pg -mfentry: frames traced per thread (default 65536) */
#define FNTRACE_ENV_LIBCALL    "FNTRACE_LIBCALL"    /* library calls: 1 (default) traced, 0 not, nest: also between libraries */
#define FNTRACE_ENV_PREFAULT   "FNTRACE_PREFAULT"   /* 1: a helper thread prepares chunks ahead (default off) */
#define FNTRACE_ENV_DRAIN_FD   "FNTRACE_DRAIN_FD"   /* set by fntrace record: the ring it drains (format/drain.h) */
#define FNTRACE_ENV_TRACE_OFF  "FNTRACE_TRACE_OFF"  /* 1: start with recording off (fnt_enable() or a signal turns it on) */
#define FNTRACE_ENV_SIGNALS    "FNTRACE_SIGNALS"    /* "SIG:on|off|snapshot;...": what each signal does */
/* record-time filters, one "KEY VALUE" per line (fntrace record -F/-N/-D/-t/
 * --module/--no-thread/-H/-C/--max-stack/-T write it): F GLOB, N GLOB,
 * D DEPTH, t NANOSECONDS, m MODULE-GLOB, T THREAD-NAME-GLOB, H GLOB, C GLOB,
 * S DEPTH, g GLOB@ACTION,... (time= in ns).  See doc/filters-and-live.md and
 * doc/triggers.md. */
#define FNTRACE_ENV_FILTERS    "FNTRACE_FILTERS"

#ifdef __cplusplus
extern "C" {
#endif

/* The compiler's hooks, exported by the runtime. */
void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site);

/*
 * The in-program API.
 *
 *   FNT_SCOPE();               trace the enclosing block as a call of the
 *                              enclosing function (for code built without
 *                              -finstrument-functions)
 *   FNT_SCOPE_NAMED("name");   the same, shown as a function called "name"
 *   fnt_mark("text");          a timestamped marker (replay, exports)
 *   fnt_capture_stack();       record the current call stack (fntrace stacks)
 *   fnt_disable(); fnt_enable(); stop / resume recording, whole process
 *   fnt_snapshot("name");      copy the trace as it is now into
 *                              <trace dir>/snapshot-name/ (flight recorder)
 *
 * Every call first tests fnt__active (one load): when the program is not
 * being recorded, each costs well under a nanosecond.
 *
 * Weak mode: `#define FNT_WEAK` before including this header makes every
 * runtime symbol a weak reference and guards each use with a null check, so
 * the program links and runs without libfntrace (link it normally, without
 * -lfntrace).  Under `fntrace record` the preloaded runtime provides the
 * symbols and the calls take effect.
 */
struct fnt_scope_site {          /* one per FNT_SCOPE_NAMED site (static) */
	const char *name;
	int registered;
};

#ifdef FNT_WEAK
#define FNT__DECL __attribute__((weak))
#define FNT__HAVE(sym) (&(sym) != 0)
#else
#define FNT__DECL
#define FNT__HAVE(sym) 1
#endif

extern FNT__DECL volatile int fnt__active;      /* 1 while recording and enabled */
FNT__DECL void fnt__enter(void *fn, void *call_site);   /* == the compiler hooks */
FNT__DECL void fnt__exit(void *fn, void *call_site);
FNT__DECL void *fnt__scope_named(struct fnt_scope_site *site);
FNT__DECL void fnt__mark(const char *text);
FNT__DECL void fnt__capture_stack(void);
FNT__DECL void fnt__set_enabled(int on);
FNT__DECL int fnt__snapshot(const char *name);

#define FNT__ON() (FNT__HAVE(fnt__active) && __builtin_expect(fnt__active, 0))
/* the header's own helpers are never instrumented themselves */
#define FNT__INLINE static inline __attribute__((always_inline, no_instrument_function, unused))

/* macros, so that a captured stack shows the caller's own line */
#define fnt_mark(text) (FNT__ON() ? fnt__mark(text) : (void)0)
#define fnt_capture_stack() (FNT__ON() ? fnt__capture_stack() : (void)0)
/* 0 when the snapshot was written, -1 otherwise (not recording, no space) */
#define fnt_snapshot(name) (FNT__ON() ? fnt__snapshot(name) : -1)

FNT__INLINE void fnt_enable(void)
{
	if (FNT__HAVE(fnt__set_enabled))
		fnt__set_enabled(1);
}

FNT__INLINE void fnt_disable(void)
{
	if (FNT__HAVE(fnt__set_enabled))
		fnt__set_enabled(0);
}

struct fnt__scope {
	void *fn;
};

FNT__INLINE void fnt__scope_end(struct fnt__scope *s)
{
	if (s->fn)
		fnt__exit(s->fn, 0);
}

/* (FNT_SCOPE has tested FNT__ON() already) */
FNT__INLINE void *fnt__scope_begin(void *fn)
{
	fnt__enter(fn, 0);
	return fn;
}

/* an address inside the enclosing function: views name the scope after it */
#define FNT__HERE() ({ void *fnt__pc; __asm__ volatile("lea 0(%%rip), %0" : "=r"(fnt__pc)); fnt__pc; })
#define FNT__CAT2(a, b) a##b
#define FNT__CAT(a, b) FNT__CAT2(a, b)

#define FNT_SCOPE() \
	struct fnt__scope FNT__CAT(fnt__scope_, __LINE__) __attribute__((cleanup(fnt__scope_end), unused)) = \
		{ FNT__ON() ? fnt__scope_begin(FNT__HERE()) : 0 }

#define FNT_SCOPE_NAMED(name) \
	static struct fnt_scope_site FNT__CAT(fnt__site_, __LINE__) = { name, 0 }; \
	struct fnt__scope FNT__CAT(fnt__scope_, __LINE__) __attribute__((cleanup(fnt__scope_end), unused)) = \
		{ FNT__ON() ? fnt__scope_named(&FNT__CAT(fnt__site_, __LINE__)) : 0 }

/* -fpatchable-function-entry builds: patch (on != 0) or unpatch the selected
 * functions' pads now, safely while other threads run (doc/args.md).
 * 0 when done; -1 when there is nothing to patch or the switch could not be
 * made (the pads then stay as they were).  Not from a signal handler. */
FNT__DECL int fnt_patch(int on);   /* weak mode: test &fnt_patch first */

#ifdef __cplusplus
}
#endif

#endif
