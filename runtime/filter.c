/*
 * filter.c - record-time filters: which calls reach the trace at all.
 *
 * `fntrace record -F/-N/-D/-t/--module/--no-thread` pass FNTRACE_FILTERS
 * (one "KEY VALUE" per line); the text is parsed once at start-up and
 * written into the trace as a FILTERS meta record.
 *
 * Names are never looked at on the hot path.  At start and after each
 * dlopen/dlclose (modules.c calls fnt_filter_modules under its lock), the
 * symbol table (.symtab, else .dynsym) of every instrumented ELF object is
 * read from its file with the small reader below, the -F/-N globs are
 * matched against each function's name (and its demangled forms, by the
 * tool's own symbols/cxxname.c), and the matching runtime addresses go into
 * an open-addressing hash set.  The set is built aside and published whole
 * with one release store; readers only ever see a complete set.  Old sets
 * are never freed (one per dlopen that changed something), so a hook still
 * probing one is always safe.
 *
 * Per thread, decisions are depth counters (struct fnt_thread): fdepth
 * counts every traced call, f_root/n_root mark the open -F subtree and the
 * open hidden subtree.  An exit takes the same decision as its entry
 * without a lookup, from the depths.  Functions outside the --module
 * objects are treated as if they were not instrumented at all.
 *
 * -t: before writing an entry, the writer's state (position, timestamp
 * base, previous NEW address) is saved by depth.  When the call returns
 * sooner than the threshold and its entry is still the last thing in the
 * chunk, the entry is erased: a 0x00 on its first byte (the data ends there
 * again, for a reader at any instant), then zeros over the rest, and the
 * state restored, the two slots of its set of the address cache included
 * (as they were before the entry: the reader never saw a NEW that filled
 * one).  A parent whose children were all erased
 * is then erasable too, and its duration includes theirs.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fntrace.h"
#include "runtime/runtime.h"
#include "symbols/cxxname.h"

uint32_t fnt_filtering FNT_HIDDEN;
uint32_t fnt_name_gen FNT_HIDDEN = 1;

#define MAX_GLOBS 64
#define FM_F 1u
#define FM_N 2u
#define FM_H 4u      /* -H, @hide */
#define FM_C 8u      /* -C */
#define ADDR_MASK ((1ull << 57) - 1)

static char *cfg_text;
static size_t cfg_len;
static const char *glob_F[MAX_GLOBS], *glob_N[MAX_GLOBS], *glob_m[MAX_GLOBS], *glob_T[MAX_GLOBS];
static const char *glob_H[MAX_GLOBS], *glob_C[MAX_GLOBS], *glob_g[MAX_GLOBS];
static struct fnt_trig trig_g[MAX_GLOBS];   /* the actions of each -T glob */
static int n_F, n_N, n_m, n_T, n_H, n_C, n_g;
static int32_t max_depth, max_stack;
static uint64_t min_ticks;
uint32_t fnt_trig_flags FNT_HIDDEN;

#define cur_set fnt_cur_set
struct fnt_fset *fnt_cur_set FNT_HIDDEN;

/* per module: its matched addresses, kept across rescans */
struct mod_syms {
	char *path;
	uint64_t bias, lo, hi;
	int traced, seen;
	uint64_t *addrs;            /* addr | flags << 58 */
	size_t n;
	struct fnt_trig_slot *trigs;  /* the functions with triggers */
	size_t n_trigs, cap_trigs;
};
static struct mod_syms *mods;
static int n_mods, cap_mods;

struct fnt_tframe {                 /* -t: the writer's state before an entry */
	uint8_t *pos;
	uint64_t last, prev_new;
	uintptr_t fn, set_prev[2];  /* the two slots of fn's set of the cache before the entry */
	uint32_t seq;               /* t->seq while the entry's chunk is current */
	uint32_t fresh;             /* the entry starts a new chunk: pos etc. are found at the exit */
	int32_t fdepth;             /* t->flt.fdepth of the call (not some call entered while disabled) */
	uint32_t match;             /* -C: the call matches (it leads to a match whatever c_keep says) */
};
#define TFRAMES 64

/* ---- configuration ---- */

static int glob_any(const char *const *g, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!fnmatch(g[i], s, 0) || !strcmp(g[i], s))
			return 1;
	return 0;
}

/* ticks per ns from two clock samples 2 ms apart (1e-3 precise), once;
 * each the tightest of its windows, so that a preemption between the two
 * clocks' reads does not scale every time= threshold by its length */
uint64_t fnt_ns_to_ticks(uint64_t ns)
{
	static double per_ns;
	if (!per_ns) {
		uint64_t m0, t0, m1, t1;
		clock_sample(&t0, &m0, NULL);
		do
			clock_sample(&t1, &m1, NULL);
		while (m1 < m0 + 2000000);
		per_ns = fnt_use_tsc ? (double)(t1 - t0) / (double)(m1 - m0) : 1.0;
	}
	uint64_t ticks = (uint64_t)((double)ns * per_ns);
	return ticks ? ticks : 1;
}

/* "GLOB@ACTION,ACTION" (record checked it; an action not known is
 * skipped).  filter, notrace and hide are -F, -N and -H for GLOB. */
static void trigger_parse(char *spec)
{
	char *at = strrchr(spec, '@'), *save = NULL;
	struct fnt_trig g = { 0 };
	if (!at || at == spec || n_g >= MAX_GLOBS)
		return;
	*at = 0;
	for (char *a = strtok_r(at + 1, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		if (!strcmp(a, "trace_on"))
			g.flags |= FNT_TRIG_ON;
		else if (!strcmp(a, "trace_off"))
			g.flags |= FNT_TRIG_OFF;
		else if (!strcmp(a, "backtrace"))
			g.flags |= FNT_TRIG_BACKTRACE;
		else if (!strcmp(a, "finish"))
			g.flags |= FNT_TRIG_FINISH;
		else if (!strcmp(a, "snapshot"))
			g.flags |= FNT_TRIG_SNAPSHOT;
		else if (!strncmp(a, "depth=", 6) && atoi(a + 6) > 0) {
			g.flags |= FNT_TRIG_DEPTH;
			g.depth = atoi(a + 6);
		} else if (!strncmp(a, "time=", 5) && strtoull(a + 5, NULL, 10)) {
			g.flags |= FNT_TRIG_TIME;
			g.time_ticks = strtoull(a + 5, NULL, 10);   /* ns until the parse is done */
		} else if (!strcmp(a, "filter") && n_F < MAX_GLOBS)
			glob_F[n_F++] = spec;
		else if (!strcmp(a, "notrace") && n_N < MAX_GLOBS)
			glob_N[n_N++] = spec;
		else if (!strcmp(a, "hide") && n_H < MAX_GLOBS)
			glob_H[n_H++] = spec;
	}
	if (!g.flags)
		return;
	glob_g[n_g] = spec;
	trig_g[n_g++] = g;
	fnt_trig_flags |= g.flags;
}

void fnt_filter_init(void)
{
	const char *env = getenv(FNTRACE_ENV_FILTERS);
	char *s, *line, *save = NULL;
	uint64_t min_ns = 0;

	if (!env || !*env)
		return;
	cfg_len = strlen(env);
	cfg_text = strdup(env);
	s = strdup(env);       /* (never freed: the globs point into it) */
	if (!cfg_text || !s)
		return;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key = line[0];
		const char *val = line + 2;
		if (!key || line[1] != ' ' || !*val)
			continue;
		switch (key) {
		case 'F': if (n_F < MAX_GLOBS) glob_F[n_F++] = val; break;
		case 'N': if (n_N < MAX_GLOBS) glob_N[n_N++] = val; break;
		case 'm': if (n_m < MAX_GLOBS) glob_m[n_m++] = val; break;
		case 'T': if (n_T < MAX_GLOBS) glob_T[n_T++] = val; break;
		case 'H': if (n_H < MAX_GLOBS) glob_H[n_H++] = val; break;
		case 'C': if (n_C < MAX_GLOBS) glob_C[n_C++] = val; break;
		case 'S': max_stack = (int32_t)strtol(val, NULL, 10); break;
		case 'g': trigger_parse(line + 2); break;
		case 'D': max_depth = (int32_t)strtol(val, NULL, 10); break;
		case 't': min_ns = strtoull(val, NULL, 10); break;
		}
	}
	if (max_stack < 0)
		max_stack = 0;
	for (int i = 0; i < n_g; i++)
		if (trig_g[i].flags & FNT_TRIG_TIME)
			trig_g[i].time_ticks = fnt_ns_to_ticks(trig_g[i].time_ticks);
	if (max_depth < 0)
		max_depth = 0;
	if (min_ns)
		min_ticks = fnt_ns_to_ticks(min_ns);
	if (n_F || n_N || n_m || n_T || max_depth || min_ticks || n_H || n_C || max_stack ||
	    (fnt_trig_flags & FNT_TRIG_DEPTH)) {
		fnt_filtering = FNT_FILTER_ON | (n_m ? 0 : FNT_FILTER_DEPTH_ONLY) | (n_F ? FNT_FILTER_HAS_F : 0) |
				(n_T ? 0 : FNT_FILTER_NO_NAMES);
		fnt_flags |= FNT_FLAG_FILTERED;
	}
	if (fnt_trig_flags)
		fnt_flags |= FNT_FLAG_FILTERED;   /* (the FILTERS record lists the triggers) */
}

void fnt_filter_write_meta(void)
{
	if ((fnt_filtering || fnt_trig_flags) && cfg_text)
		fnt_meta_append(FNT_META_FILTERS, cfg_text, cfg_len, NULL, 0);
}

/* ---- symbol tables ---- */

/* A C++ name matches in every form the tool can show it in (symbols/cxxname.c,
 * the same code, linked in with libiberty's demangler, whose objects need
 * nothing but libc): full signature, short, simple, and the short name
 * before the standard library's types are renamed; and mangled.  Returns
 * the FM_* bits; *g gets the actions of every -T glob that matches. */
static unsigned match_name(const char *name, struct fnt_trig *g)
{
	/* (CXXNAME_SIG: 'std::*' must not name every template function
	 * returning a std:: type, as the full form with its return type did) */
	static const enum cxxname_style styles[] = { CXXNAME_SIG, CXXNAME_SHORT, CXXNAME_SIMPLE, CXXNAME_NAME };
	char *forms[2 * (1 + sizeof(styles) / sizeof(*styles))];
	char *base = cxxname_unclone(name);     /* a clone's function: its forms too */
	const char *names[2] = { name, base };
	size_t n_forms = 0;
	unsigned f = 0;
	for (int b = 0; b < 2 && names[b]; b++) {
		const char *nm = names[b];
		forms[n_forms++] = (char *)nm;
		for (size_t i = 0; i < sizeof(styles) / sizeof(*styles) && nm[0] == '_' && nm[1] == 'Z'; i++) {
			char *d = cxxname_demangle(nm, styles[i]);
			if (!d)
				break;
			forms[n_forms++] = d;
		}
	}
	for (size_t k = 0; k < n_forms; k++) {
		if (glob_any(glob_F, n_F, forms[k]))
			f |= FM_F;
		if (glob_any(glob_N, n_N, forms[k]))
			f |= FM_N;
		if (glob_any(glob_H, n_H, forms[k]))
			f |= FM_H;
		if (glob_any(glob_C, n_C, forms[k]))
			f |= FM_C;
		for (int i = 0; i < n_g; i++)
			if (!fnmatch(glob_g[i], forms[k], 0) || !strcmp(glob_g[i], forms[k])) {
				/* several globs: every action, the smallest depth, the longest time */
				const struct fnt_trig *t = &trig_g[i];
				if ((t->flags & FNT_TRIG_DEPTH) && (!(g->flags & FNT_TRIG_DEPTH) || t->depth < g->depth))
					g->depth = t->depth;
				if (t->time_ticks > g->time_ticks)
					g->time_ticks = t->time_ticks;
				g->flags |= t->flags;
			}
	}
	for (size_t k = 0; k < n_forms; k++)
		if (forms[k] != name && forms[k] != base)
			free(forms[k]);
	free(base);
	return f;
}

static void add_addr(struct mod_syms *m, uint64_t addr, unsigned flags, size_t *cap)
{
	if (m->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		uint64_t *a = realloc(m->addrs, nc * sizeof(*a));
		if (!a)
			return;
		m->addrs = a;
		*cap = nc;
	}
	m->addrs[m->n++] = (addr & ADDR_MASK) | (uint64_t)flags << 58;
}

struct sym_scan {
	struct mod_syms *m;
	size_t cap;
};

static void add_trig(struct mod_syms *m, uint64_t addr, const struct fnt_trig *g)
{
	if (m->n_trigs == m->cap_trigs) {
		size_t nc = m->cap_trigs ? m->cap_trigs * 2 : 8;
		struct fnt_trig_slot *a = realloc(m->trigs, nc * sizeof(*a));
		if (!a)
			return;
		m->trigs = a;
		m->cap_trigs = nc;
	}
	m->trigs[m->n_trigs].addr = addr;
	m->trigs[m->n_trigs++].g = *g;
}

static void match_symbol(void *ctx, const char *name, uint64_t vaddr)
{
	struct sym_scan *ss = ctx;
	struct fnt_trig g = { 0 };
	unsigned f = match_name(name, &g);
	if (f)
		add_addr(ss->m, ss->m->bias + vaddr, f, &ss->cap);
	if (g.flags)
		add_trig(ss->m, ss->m->bias + vaddr, &g);
}

/* The -F/-N matches among the function symbols of one ELF file.  Objects
 * that never call the hooks (or have no patchable pads) and that -P does
 * not patch never reach them: their names are skipped. */
static void read_symbols(struct mod_syms *m)
{
	struct fnt_elf e;
	struct sym_scan ss = { .m = m };
	int lc;
	if (fnt_elf_open(&e, m->path))
		return;
	if (fnt_elf_hooks(&e, m->path) || fnt_prologue_wanted(&e, m->path))
		fnt_elf_functions(&e, match_symbol, &ss);
	if ((lc = fnt_libcall_traced(&e, m->path)) != 0)
		fnt_elf_imports(&e, lc == 2, match_symbol, &ss);   /* library calls: by GOT slot */
	fnt_elf_close(&e);
}

static int module_traced(const char *path)
{
	const char *base = strrchr(path, '/');
	if (!n_m)
		return 1;
	return glob_any(glob_m, n_m, path) || (base && glob_any(glob_m, n_m, base + 1));
}

#define hash_addr fnt_fset_hash

/* Bring the per-module lists up to date with the module map, then build
 * and publish a new set.  Called under modules.c's scan lock. */
void fnt_filter_modules(const struct fnt_module_ref *ref, int n)
{
	int changed = 0;

	int names = n_F || n_N || n_H || n_C || n_g;
	if (!names && !(fnt_filtering && n_m))
		return;
	for (int i = 0; i < n_mods; i++)
		mods[i].seen = 0;
	for (int k = 0; k < n; k++) {
		int i;
		for (i = 0; i < n_mods; i++)
			if (!mods[i].seen && mods[i].bias == ref[k].bias && mods[i].lo == ref[k].lo &&
			    !strcmp(mods[i].path, ref[k].path))
				break;
		if (i < n_mods) {
			mods[i].seen = 1;
			continue;
		}
		if (n_mods == cap_mods) {
			int nc = cap_mods ? cap_mods * 2 : 32;
			struct mod_syms *nm = realloc(mods, (size_t)nc * sizeof(*nm));
			if (!nm)
				continue;
			mods = nm;
			cap_mods = nc;
		}
		struct mod_syms *m = &mods[n_mods];
		memset(m, 0, sizeof(*m));
		m->path = strdup(ref[k].path);
		if (!m->path)
			continue;
		m->bias = ref[k].bias;
		m->lo = ref[k].lo;
		m->hi = ref[k].hi;
		m->traced = module_traced(m->path);
		m->seen = 1;
		if (m->traced && names)
			read_symbols(m);
		n_mods++;
		changed = 1;
	}
	for (int i = 0; i < n_mods; i++)
		if (!mods[i].seen) {
			free(mods[i].path);
			free(mods[i].addrs);
			free(mods[i].trigs);
			mods[i--] = mods[--n_mods];
			changed = 1;
		}
	if (!changed && cur_set)
		return;
	size_t total = 0, slots = 16, n_trig = 0, trig_slots = 16;
	uint32_t n_ranges = 0;
	for (int i = 0; i < n_mods; i++) {
		total += mods[i].n;
		n_trig += mods[i].n_trigs;
		n_ranges += mods[i].traced;
	}
	while (slots < total * 2)
		slots *= 2;
	while (trig_slots < n_trig * 2)
		trig_slots *= 2;
	struct fnt_fset *s = calloc(1, sizeof(*s) + slots * sizeof(uint64_t));
	uint64_t *ranges = calloc(n_ranges ? n_ranges * 2 : 1, sizeof(uint64_t));
	struct fnt_trig_slot *trig = n_trig ? calloc(trig_slots, sizeof(*trig)) : NULL;
	if (!s || !ranges || (n_trig && !trig)) {
		free(s);
		free(ranges);
		free(trig);
		return;
	}
	s->mask = slots - 1;
	s->ranges = ranges;
	s->trig = trig;
	s->trig_mask = trig_slots - 1;
	for (int i = 0; i < n_mods; i++)
		for (size_t k = 0; k < mods[i].n_trigs; k++) {
			uint64_t a = mods[i].trigs[k].addr, j = hash_addr(a) & s->trig_mask;
			while (trig[j].addr && trig[j].addr != a)
				j = (j + 1) & s->trig_mask;
			trig[j] = mods[i].trigs[k];
		}
	for (int i = 0; i < n_mods; i++) {
		struct mod_syms *m = &mods[i];
		if (m->traced) {
			ranges[2 * s->n_ranges] = m->lo;
			ranges[2 * s->n_ranges + 1] = m->hi;
			s->n_ranges++;
		}
		for (size_t k = 0; k < m->n; k++) {
			uint64_t a = m->addrs[k] & ADDR_MASK, j = hash_addr(a) & s->mask;
			while (s->slots[j] && (s->slots[j] & ADDR_MASK) != a)
				j = (j + 1) & s->mask;
			s->slots[j] |= m->addrs[k];
		}
	}
	__atomic_store_n(&cur_set, s, __ATOMIC_RELEASE);
}

/* ---- the decision, per event ---- */

#define lookup fnt_fset_lookup

static inline int outside_modules(const struct fnt_fset *s, uintptr_t fn)
{
	if (!s)
		return 0;
	for (uint32_t i = 0; i < s->n_ranges; i++)
		if (fn >= s->ranges[2 * i] && fn < s->ranges[2 * i + 1])
			return 0;
	return 1;
}

static void name_check(struct fnt_thread *t)
{
	char name[17] = "";
	if (fnt_no_clock)
		return;         /* seccomp strict: no prctl (clock.c) */
	t->flt.name_gen = __atomic_load_n(&fnt_name_gen, __ATOMIC_RELAXED);
	fnt_thread_name(name);
	t->flt.thread_off = glob_any(glob_T, n_T, name);
}

/* the entry starting at f->pos (with its CALLSITE and ARGS records) is the
 * whole of [f->pos, t->pos); *at: its time */
static int only_entry(const struct fnt_thread *t, const struct fnt_tframe *f, uintptr_t fn, uint64_t *at)
{
	const uint8_t *p = f->pos;
	uint64_t v, zz, base = f->last;
	unsigned len;

	if (p[0] == (uint8_t)fnt_varint_pack((uint64_t)FNT_EXT_TIME << 2 | FNT_K_EXT, 1)) {
		memcpy(&base, p + 1, 8);
		p += 9;
	}
	if (p >= t->pos || !(len = fnt_varint_get(p, &v)))
		return 0;
	p += len;
	*at = base + (v >> 8);
	if ((v & 3) == FNT_K_ENTRY) {
		unsigned slot = (v >> 2) & 63;   /* fn's, in its set (nothing follows: it still holds fn) */
		if ((slot | 1) != (fnt_slot(fn) | 1) || (t->cache[slot] & ~FNT_CACHE_TAG) != fn)
			return 0;
	} else if ((v & 3) == FNT_K_NEW && (((v >> 2) & 63) & ~2u) == 0) {
		if (p >= t->pos || !(len = fnt_varint_get(p, &zz)))
			return 0;
		p += len;
		if (f->prev_new + (uint64_t)fnt_unzigzag(zz) != fn)
			return 0;
	} else {
		return 0;
	}
	if (fnt_flags & FNT_FLAG_CALLSITE) {
		if (p >= t->pos || !(len = fnt_varint_get(p, &v)) || v != ((uint64_t)FNT_EXT_CALLSITE << 2 | FNT_K_EXT))
			return 0;
		p += len;
		if (p >= t->pos || !(len = fnt_varint_get(p, &zz)))
			return 0;
		p += len;
	}
	if ((fnt_flags & FNT_FLAG_ARGS) && p < t->pos &&
	    p[0] == (uint8_t)fnt_varint_pack((uint64_t)FNT_EXT_ARGS << 2 | FNT_K_EXT, 1)) {
		/* its argument payload (-pg -mfentry): erased with it */
		if (!(len = fnt_varint_get(p + 1, &v)))
			return 0;
		p += 1 + len + v;
	}
	/* stacks (EXT_STACK records, api.c's stack_write): a backtrace
	 * trigger's after the entry, and those fnt_capture_stack() took in
	 * the call (its callees erased before it): erased with it, as a
	 * read-time -t or -C drops them with the call */
	while (p < t->pos && (len = fnt_varint_get(p, &v)) && (v & 0xff) == ((uint64_t)FNT_EXT_STACK << 2 | FNT_K_EXT)) {
		uint64_t n;
		p += len;
		if (p >= t->pos || !(len = fnt_varint_get(p, &n)))
			return 0;
		for (p += len; n > 0; n--) {
			if (p >= t->pos || !(len = fnt_varint_get(p, &zz)))
				return 0;
			p += len;
		}
	}
	/* an exception's UNWIND_TO records since (fentry.c's _Unwind_SetIP
	 * writes one at each landing pad, before gcc's cleanup calls the exit
	 * hook of the very frame it lands in), each with its LANDING record:
	 * erased with it, they close nothing more */
	while (p < t->pos && (len = fnt_varint_get(p, &v)) &&
	       (v & 0xff) == ((uint64_t)FNT_EXT_UNWIND_TO << 2 | FNT_K_EXT)) {
		p += len;
		if (p >= t->pos || !(len = fnt_varint_get(p, &zz)))
			return 0;
		p += len;
		if (p < t->pos && (len = fnt_varint_get(p, &v)) && v == ((uint64_t)FNT_EXT_LANDING << 2 | FNT_K_EXT)) {
			p += len;
			if (p >= t->pos || !(len = fnt_varint_get(p, &zz)))
				return 0;
			p += len;
		}
	}
	return p == t->pos;
}

/* Zero [from, t->pos): the first byte first, so that the data ends at
 * `from` again for a reader at any instant (-t, -C, time= triggers) */
void fnt_erase_tail(struct fnt_thread *t, uint8_t *from)
{
	size_t n = (size_t)(t->pos - from);
	if (n <= 8) {
		uint64_t z = 0;      /* the bytes past t->pos are zero already: one store */
		memcpy(from, &z, 8);
	} else {
		*(volatile uint8_t *)from = 0;
		__asm__ volatile("" ::: "memory");
		memset(from + 1, 0, n - 1);
	}
}

static void tframe_push(struct fnt_thread *t, uintptr_t fn, int match)
{
	if (!t->flt.tframes) {
		if (fnt_no_clock)
			return;         /* seccomp strict: no mmap (clock.c) */
		void *m = mmap(NULL, TFRAMES * sizeof(struct fnt_tframe), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		t->flt.tframes = m;
	}
	struct fnt_tframe *f = &t->flt.tframes[(uint32_t)t->depth % TFRAMES];
	f->fn = fn;
	f->fresh = !t->pos || t->pos >= t->limit;
	f->seq = t->seq + f->fresh;
	f->pos = t->pos;
	f->last = t->last;
	f->prev_new = t->prev_new;
	f->set_prev[0] = t->cache[fnt_slot(fn) & ~1u];
	f->set_prev[1] = t->cache[fnt_slot(fn) | 1u];
	f->fdepth = t->flt.fdepth;
	f->match = (uint32_t)match;
}

/* 1 if the call returning now was short (or force: -C) and its entry is erased */
static int tframe_erase(struct fnt_thread *t, uintptr_t fn, int32_t fdepth, int force)
{
	struct fnt_tframe *f;
	if (!t->flt.tframes || !t->chunk)
		return 0;
	f = &t->flt.tframes[(uint32_t)(t->depth - 1) % TFRAMES];
	/* (the seq test also keeps a flight recorder's rewritten chunk safe:
	 * each rewrite is a new seq) */
	if (f->fn != fn || f->seq != t->seq || f->fdepth != fdepth)
		return 0;
	if (f->fresh) {
		/* the entry opened this chunk, after a LOST record maybe */
		uint8_t *p = t->chunk + FNT_CHUNK_HDR_SIZE;
		uint64_t v, cnt;
		unsigned len = fnt_varint_get(p, &v);
		if (len && v == ((uint64_t)FNT_EXT_LOST << 2 | FNT_K_EXT)) {
			p += len;
			if (!(len = fnt_varint_get(p, &cnt)))
				return 0;
			p += len;
		}
		f->pos = p;
		f->last = ((const struct fnt_chunk_header *)t->chunk)->base_ticks;
		f->prev_new = 0;
		f->set_prev[0] = f->set_prev[1] = UINTPTR_MAX;   /* the chunk started with an empty cache */
		f->fresh = 0;
	}
	if (!f->pos || f->pos < t->chunk + FNT_CHUNK_HDR_SIZE || f->pos >= t->pos)
		return 0;
	/* (short: from its entry, which stacks it took since may follow;
	 * the last event, the entry or such a stack, is a first test) */
	uint64_t now = force ? 0 : fnt_now(), at;
	if ((!force && now - t->last >= min_ticks) || !only_entry(t, f, fn, &at) || (!force && now - at >= min_ticks))
		return 0;
	int marked = fnt_erase_mark(t, f->pos, t->depth - 1);   /* (a jump out of a handler finishes it) */
	fnt_erase_tail(t, f->pos);
	t->pos = f->pos;
	t->last = f->last;
	t->prev_new = f->prev_new;
	/* as the reader has it: the next call of fn is a hit again (its set's
	 * cache_fifo bit stays moved on: the writer's choice alone) */
	t->cache[fnt_slot(fn) & ~1u] = f->set_prev[0];
	t->cache[fnt_slot(fn) | 1u] = f->set_prev[1];
	f->pos = NULL;
	if (marked) {
		__asm__ volatile("" ::: "memory");
		t->busy = 1;
	} else {
		t->depth--;
	}
	return 1;
}

/* Levels by fdepth, three bits each (a call deeper than HBITS_MAX is not
 * marked): plane 0, -H's open hidden calls (their callees move up a
 * level); plane 1, the open calls entered while recording was off, which
 * -D does not count either (the reader has none of them: its depths start
 * at the first call written); plane 2, every open call entered while
 * recording was off, whose return is not written once recording is on
 * again (fnt_filter_event) */
#define HBITS_MAX 65536
#define HBITS_BYTES (3 * HBITS_MAX / 8)
#define H_PLANE 0
#define O_PLANE (HBITS_MAX / 64)
#define P_PLANE (2 * HBITS_MAX / 64)
static int bit_set(struct fnt_thread *t, int plane, int32_t d)
{
	if (d <= 0 || d >= HBITS_MAX)
		return 0;
	if (!t->flt.hbits) {
		if (fnt_no_clock)
			return 0;       /* seccomp strict: no mmap (clock.c) */
		void *m = mmap(NULL, HBITS_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return 0;
		t->flt.hbits = m;
	}
	t->flt.hbits[plane + d / 64] |= 1ull << (d % 64);
	return 1;
}

static int bit_take(struct fnt_thread *t, int plane, int32_t d)
{
	if (!t->flt.hbits || d <= 0 || d >= HBITS_MAX || !(t->flt.hbits[plane + d / 64] & (1ull << (d % 64))))
		return 0;
	t->flt.hbits[plane + d / 64] &= ~(1ull << (d % 64));
	return 1;
}

#define hbit_set(t, d) bit_set(t, H_PLANE, d)
#define hbit_take(t, d) bit_take(t, H_PLANE, d)

/* a note at fdepth d past the notes mapped: the thread's first (the
 * depths above it not known), or a call deeper than any before.  The
 * notes double, up to FNT_FLT_MAX depths; when they cannot (no memory, a
 * vfork child, which shares its parent's), the depth stays not known */
void fnt_fn_note_grow(struct fnt_thread *t, int32_t d, uintptr_t fn)
{
	uint32_t cap = t->flt_cap, want = cap ? cap : FNT_FLT_FIRST;
	void *m;
	if (d < 0 || (uint32_t)d >= FNT_FLT_MAX || t->file || fnt_no_clock)
		return;
	while (want <= (uint32_t)d)
		want *= 2;
	if (!t->flt_notes) {
		if (t->flt_fn_tried)
			return;
		t->flt_fn_tried = 1;
		m = mmap(NULL, want * sizeof(struct fnt_fnote), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (m == MAP_FAILED)
			return;
		t->flt_fn_lo = d - 1;   /* the calls open before: not known */
	} else {
		m = mremap(t->flt_notes, cap * sizeof(struct fnt_fnote), want * sizeof(struct fnt_fnote), MREMAP_MAYMOVE);
		if (m == MAP_FAILED)
			return;
	}
	t->flt_notes = m;
	t->flt_cap = want;
	fnt_fn_note(t, d, fn);
}

int fnt_filter_event(struct fnt_thread *t, uintptr_t fn, int is_exit)
{
	const struct fnt_fset *s = __atomic_load_n(&cur_set, __ATOMIC_ACQUIRE);
	int32_t d, rel;

	if (n_m && outside_modules(s, fn))
		return 1;          /* as if it were not instrumented */
	if (n_T && unlikely(t->flt.name_gen != __atomic_load_n(&fnt_name_gen, __ATOMIC_RELAXED)))
		name_check(t);
	if (!is_exit) {
		d = ++t->flt.fdepth;
		fnt_fn_note(t, d, fn);
		(void)bit_take(t, P_PLANE, d);   /* (a level left on a path that does not look at it) */
		if (t->flt.n_root)
			return 1;
		unsigned m = (n_F || n_N || n_H || n_C) ? lookup(s, fn) : 0;
		if ((m & FM_N) || t->flt.thread_off) {
			t->flt.n_root = d;
			return 1;
		}
		/* -C: the open calls lead to a match, also one that is not
		 * written (past -D, --max-stack or a depth=N trigger) */
		if ((m & FM_C) && d > t->flt.c_keep)
			t->flt.c_keep = d;
		if (max_stack && d > max_stack)
			return 1;          /* --max-stack: deeper than N from the thread's first frame */
		if (n_F && !t->flt.f_root) {
			if (!(m & FM_F)) {
				if ((m & FM_C) && !t->flt.c_root)
					t->flt.c_root = d;   /* (not written: its callees are not either, -F ones included) */
				return 1;
			}
			if (t->flt.c_root)
				return 1;          /* a -F match under a -C match outside the -F subtrees */
			t->flt.f_root = d;
		}
		if (t->flt.c_root || (t->flt.d_lim && d - t->flt.h_open - t->flt.o_open > t->flt.d_lim))
			return 1;          /* under a -C match, or deeper than a depth=N trigger allows */
		rel = d - (t->flt.f_root ? t->flt.f_root : 1) - t->flt.h_open - t->flt.o_open;
		if (max_depth && rel >= max_depth)
			return 1;
		if (fnt_trig_flags & FNT_TRIG_DEPTH) {
			const struct fnt_trig *g = fnt_trigger_find(fn);
			/* (in levels that are written: -H calls do not count; only
			 * a trigger that narrows the limit takes one of the 8 slots,
			 * so that a recursion or a chain of depth= functions does not
			 * use them up before the one that narrows it) */
			int32_t lim = g && (g->flags & FNT_TRIG_DEPTH) ? d - t->flt.h_open - t->flt.o_open + g->depth - 1 : 0;
			if (lim && (!t->flt.d_lim || lim < t->flt.d_lim) && t->flt.n_dstack < 8) {
				t->flt.dstack[t->flt.n_dstack].fdepth = d;
				t->flt.dstack[t->flt.n_dstack++].prev = t->flt.d_lim;
				t->flt.d_lim = lim;
			}
		}
		if ((m & FM_H) && hbit_set(t, d)) {
			t->flt.h_open++;
			if (m & FM_C)
				t->flt.c_root = d;   /* (a hidden -C match: its callees are not written either) */
			return 1;          /* -H: its callees are written one level up */
		}
		if (m & FM_C)
			t->flt.c_root = d;
		if (min_ticks || n_C)
			tframe_push(t, fn, (m & FM_C) != 0);
		return 0;
	}
	if (!(fnt_filtering & FNT_FILTER_DEPTH_ONLY) && fnt_exit_skipped(t, fn, 1))
		return 1;
	d = t->flt.fdepth;
	t->flt.fdepth = d - 1;
	/* (a call entered while recording was off, returning now: its level
	 * was not counted, nor is it at its exit) */
	if (t->flt.o_open && bit_take(t, O_PLANE, d))
		t->flt.o_open--;
	int off_entered = bit_take(t, P_PLANE, d);
	/* -C: whether the call led to a match, before any early return (a
	 * call not written, -H's included, passes it on to its caller) */
	int led = d <= t->flt.c_keep;
	if (led)
		t->flt.c_keep = d - 1;
	if (t->flt.n_root) {
		if (d <= t->flt.n_root)
			t->flt.n_root = 0;
		return 1;
	}
	if (t->flt.c_root) {
		if (d > t->flt.c_root)
			return 1;
		t->flt.c_root = 0;
	}
	if (max_stack && d > max_stack)
		return 1;
	if (n_F && !t->flt.f_root)
		return 1;
	/* what the call opened closes before any early return (a hidden -F
	 * match or depth=N trigger kept it open, before) */
	int32_t f_root = t->flt.f_root;
	if (f_root >= d)
		t->flt.f_root = 0;
	int trig = t->flt.n_dstack && t->flt.dstack[t->flt.n_dstack - 1].fdepth == d;
	if (trig)
		t->flt.d_lim = t->flt.dstack[--t->flt.n_dstack].prev;
	if (t->flt.h_open && hbit_take(t, d)) {
		t->flt.h_open--;
		return 1;
	}
	/* The return of a call entered while recording was off: not written
	 * (its entry was not), as a -pg build does not see it and replay -T
	 * FUNC@trace_on does not show it.  Written, it kept the -C and -t
	 * erasures of its written callers from finding their entries last,
	 * and took one off t->depth, which its entry had not added. */
	if (off_entered)
		return 1;
	if (!trig && t->flt.d_lim && d - t->flt.h_open - t->flt.o_open > t->flt.d_lim)
		return 1;
	rel = d - (f_root ? f_root : 1) - t->flt.h_open - t->flt.o_open;
	if (max_depth && rel >= max_depth)
		return 1;
	if (n_C) {
		/* -C: a call that led to no -C match is erased, when its entry is
		 * still the last thing written (its callees were erased before it) */
		if (!led && tframe_erase(t, fn, d, 1))
			return 1;
	}
	if (min_ticks)
		return tframe_erase(t, fn, d, 0);
	return 0;
}

int fnt_filter_inner_written(const struct fnt_thread *t)
{
	int32_t d = t->flt.fdepth, rel;
	if (!fnt_filtering || d <= 0)
		return 1;
	if (t->flt.n_root || (n_F && !t->flt.f_root) || (t->flt.c_root && d > t->flt.c_root) ||
	    (max_stack && d > max_stack) || (t->flt.d_lim && d - t->flt.h_open - t->flt.o_open > t->flt.d_lim))
		return 0;
	rel = d - (t->flt.f_root ? t->flt.f_root : 1) - t->flt.h_open - t->flt.o_open;
	return !(max_depth && rel >= max_depth);
}

/* the calls deeper than fdepth were left (returned while disabled, or a
 * longjmp): the -H, -C and depth=N state of those calls goes with them */
static void filter_left(struct fnt_thread *t, int32_t fdepth, int32_t was)
{
	if (t->flt.c_root > fdepth)
		t->flt.c_root = 0;
	if (t->flt.c_keep > fdepth)
		t->flt.c_keep = fdepth;
	while (t->flt.n_dstack && t->flt.dstack[t->flt.n_dstack - 1].fdepth > fdepth)
		t->flt.d_lim = t->flt.dstack[--t->flt.n_dstack].prev;
	for (int32_t d = fdepth + 1; t->flt.h_open && d <= was && d < HBITS_MAX; d++)
		t->flt.h_open -= hbit_take(t, d);
	for (int32_t d = fdepth + 1; t->flt.o_open && d <= was && d < HBITS_MAX; d++)
		t->flt.o_open -= bit_take(t, O_PLANE, d);
	for (int32_t d = fdepth + 1; t->flt.hbits && d <= was && d < HBITS_MAX; d++)
		(void)bit_take(t, P_PLANE, d);
}

/* fnt_disable() in force: nothing is written, but the depth moves as in
 * fnt_filter_event, and a subtree left closes (a call of a -F or -N match
 * entered before fnt_disable() may return while it lasts) */
void fnt_filter_paused(struct fnt_thread *t, uintptr_t fn, int is_exit)
{
	int32_t d;
	if (n_m && outside_modules(__atomic_load_n(&cur_set, __ATOMIC_ACQUIRE), fn))
		return;
	if (!is_exit) {
		d = ++t->flt.fdepth;
		fnt_fn_note(t, d, fn);
		/* a -N or -F match opens its subtree while recording is off
		 * too: a trace_on inside it finds it open, as replay does */
		if ((n_N || n_F) && !t->flt.n_root) {
			unsigned m = lookup(__atomic_load_n(&cur_set, __ATOMIC_ACQUIRE), fn);
			if (m & FM_N)
				t->flt.n_root = d;
			else if ((m & FM_F) && !t->flt.f_root && !t->flt.c_root)
				t->flt.f_root = d;
		}
		/* (-D: not a level, once recording is on again; but inside a
		 * -N subtree or outside the -F ones -D counts nothing, and
		 * their exits there are not looked at one by one) */
		if ((max_depth || (fnt_trig_flags & FNT_TRIG_DEPTH)) && !t->flt.n_root && (!n_F || t->flt.f_root) &&
		    bit_set(t, O_PLANE, d))
			t->flt.o_open++;
		(void)bit_set(t, P_PLANE, d);
		return;
	}
	if (fnt_exit_skipped(t, fn, 0))
		return;
	d = t->flt.fdepth--;
	if (t->flt.n_root >= d)
		t->flt.n_root = 0;
	if (t->flt.f_root >= d)
		t->flt.f_root = 0;
	filter_left(t, d - 1, d);
}

void fnt_filter_off_entered(struct fnt_thread *t)
{
	/* (a trace_off call: its entry passed the filters but is not
	 * written; -D does not count its level either, as replay does not) */
	if ((max_depth || (fnt_trig_flags & FNT_TRIG_DEPTH)) && bit_set(t, O_PLANE, t->flt.fdepth))
		t->flt.o_open++;
	/* (nor does a depth=N of its own limit anything: replay sets none on
	 * a call it does not show) */
	if (t->flt.n_dstack && t->flt.dstack[t->flt.n_dstack - 1].fdepth == t->flt.fdepth)
		t->flt.d_lim = t->flt.dstack[--t->flt.n_dstack].prev;
	(void)bit_set(t, P_PLANE, t->flt.fdepth);
}

/* -C (or -t) and a longjmp that leaves frames which led to no -C match (or
 * lasted less than -t up to the jump): they never return, so their exits
 * cannot erase them; they are erased here instead,
 * innermost first, as their exits would have (while each entry is still
 * the last thing written).  Before fnt_filter_longjmp, which lowers c_keep.
 * Returns how many written frames were erased (t->depth went down by it). */
static int erase_left(struct fnt_thread *t, int32_t depth, int32_t fdepth)
{
	int n = 0;
	if ((!n_C && !min_ticks) || !fnt_filtering || !t->flt.tframes)
		return 0;
	while (t->depth > depth) {
		struct fnt_tframe *f = &t->flt.tframes[(uint32_t)(t->depth - 1) % TFRAMES];
		if (f->fdepth <= fdepth)
			break;          /* (an exception's landing frame, and the calls around it) */
		/* (a -C match never: a jump out of a handler that landed in its
		 * exit hook, after the hook had lowered c_keep and before it
		 * wrote the exit, took it back) */
		if (n_C && f->fdepth > t->flt.c_keep && !f->match && tframe_erase(t, f->fn, f->fdepth, 1))
			n++;
		else if (min_ticks && tframe_erase(t, f->fn, f->fdepth, 0))
			n++;          /* -t: shorter than the threshold up to the jump */
		else
			break;
	}
	return n;
}

int fnt_filter_unwind_erase(struct fnt_thread *t, int32_t depth)
{
	return erase_left(t, depth, INT32_MIN);
}

/* (also when the filter depth is fdepth already: a jump out of a signal
 * handler that landed in an exit hook after it had counted the call out
 * of the filter depth, and before it had closed what the call held open
 * (-C's match and kept depths, -N, -F, -H, depth=N) leaves that to here;
 * kept, a -C match's depth kept the next call at that depth, which led to
 * no match.  No call deeper than the filter depth is open, so what is
 * held for one is stale either way) */
void fnt_filter_longjmp(struct fnt_thread *t, int32_t fdepth)
{
	int32_t was = t->flt.fdepth;
	if (!fnt_filtering || fdepth > t->flt.fdepth)
		return;
	t->flt.fdepth = fdepth;
	if (t->flt.n_root > fdepth)
		t->flt.n_root = 0;
	if (t->flt.f_root > fdepth)
		t->flt.f_root = 0;
	filter_left(t, fdepth, was > fdepth ? was : fdepth + 1);
}

/* The calls deeper than fdepth d are gone without their exits (an
 * exception left them): the written ones among them close with an UNWIND
 * record, as a longjmp's do, -C and -t erasing first those that their exits
 * would have (while each entry is still the last thing written), and the
 * written depth, which a later longjmp, a fork and a stack switch count
 * from, goes back with them.  With the guard held (unless `take`); 0 when
 * the note above d's says more calls were written than are open: the
 * filters' depths move, nothing is written. */
static int close_above(struct fnt_thread *t, int32_t d, int take)
{
	int32_t top = t->flt.fdepth;
	/* the written calls open when the frame above it was entered: the
	 * ones still open inside it now */
	int32_t depth = d < top ? t->flt_notes[d + 1].wd : t->depth;
	if (depth > t->depth || depth < 0) {
		fnt_filter_longjmp(t, d);
		return 0;
	}
	if (depth < t->depth && (!take || !t->busy) && t->state == FNT_T_ACTIVE && t->chunk) {
		if (take)
			t->busy = FNT_BUSY_RUNTIME;
		__asm__ volatile("" ::: "memory");
		erase_left(t, depth, d);
		if (t->depth > depth)
			fnt_trigger_unwind_erase(t, depth);
		if (t->depth > depth)
			fnt_put_unwind(t, (uint32_t)(t->depth - depth));
		__asm__ volatile("" ::: "memory");
		if (take)
			t->busy = 0;
	}
	fnt_filter_longjmp(t, d);
	return 1;
}

/* the call open at fdepth d (> 0) is noted */
static int noted(const struct fnt_thread *t, int32_t d)
{
	return d > t->flt_fn_lo && (uint32_t)d < t->flt_cap && t->flt_notes[d].fn;
}

/* The calls above fdepth d, up to top, closed by a landing pad in d's
 * frame, for their returns: those closed above frames that are gone (deeper
 * than d) go, and the oldest make room */
static void gone_add(struct fnt_gone *g, const struct fnt_thread *t, int32_t d, int32_t top)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->n; i++)
		if (g->e[i].at <= d)
			g->e[n++] = g->e[i];
	for (int32_t k = d + 1; k <= top && k <= d + FNT_GONE_MAX; k++) {
		if (n == FNT_GONE_MAX) {
			memmove(&g->e[0], &g->e[1], (FNT_GONE_MAX - 1) * sizeof(g->e[0]));
			n--;
		}
		g->e[n].fn = t->flt_notes[k].fn;
		g->e[n++].at = d;
	}
	g->n = n;
}

/* An exception lands (a catch, or a cleanup's destructors) in the frame
 * of the function that starts at fn: the calls inside its innermost open
 * call are gone.  gcc's exit hooks (and the -pg return trampolines) have
 * taken them out of the depth already; clang's -finstrument-functions
 * calls no exit hook for them, and the depths stayed as if they were open:
 * `record -D 2` dropped every later call of the thread, -N left its subtree
 * open for good.  They close here (close_above; 1: the caller writes no
 * UNWIND_TO): the landing frame may not be written (`record -F f`, f
 * thrown through and caught by its caller).  A function inlined into fn
 * that holds the catch is among them: the runtime has no DWARF to tell it
 * from one the exception left (the reader, for an UNWIND_TO, has), so its
 * catch is written a level too high, and its return, when it comes, is
 * skipped (fnt_filter_stray_exit).  Not found among the FNT_FLT_SCAN
 * innermost calls known (a stack switch, a catch in code not traced, a
 * throw deeper than that below it): the depths stay (0). */
int fnt_filter_landing(struct fnt_thread *t, uintptr_t fn)
{
	int32_t top = t->flt.fdepth;
	/* (inside a hook, a signal handler's exception: the notes may be
	 * half written, or moving) */
	if (!fnt_filtering || !fn || t->busy)
		return 0;
	for (int32_t d = top; d > 0 && top - d < FNT_FLT_SCAN && noted(t, d); d--)
		if (t->flt_notes[d].fn == fn) {
			gone_add(&t->gone, t, d, top);
			return close_above(t, d, 1);   /* (0: the reader's UNWIND_TO) */
		}
	return 0;
}

/* An exit (guard held) of a function that is not the innermost open
 * call's (t->flt_notes says which that is): calls were left without their
 * exits, or this one was closed already.  An exception that clang's
 * -finstrument-functions unwound through calls no exit hook for the
 * frames it leaves, and an inlined function that held the catch was
 * closed at the landing pad (fnt_filter_landing; it is skipped at once).
 * fn open further out, among the FNT_FLT_SCAN innermost calls: the calls
 * inside it close as unwound, and the exit goes on (0).  fn open nowhere,
 * every open call known: the exit is not one of ours to follow (1:
 * skipped); the depths would otherwise end one of its callers' frames.
 * Anything not known (a stack switch, calls deeper than the scan or than
 * FNT_FLT_MAX): as before, 0.  `write` 0 while
 * fnt_disable() is in force: the depths move, nothing is written. */
int fnt_filter_stray_exit(struct fnt_thread *t, uintptr_t fn, int write)
{
	int32_t top = t->flt.fdepth, d;
	/* a call a landing pad closed, returning in the landing frame (a
	 * function inlined into it, that held the catch): skipped, with the
	 * calls that pad closed inside it; those of frames that have returned
	 * go */
	struct fnt_gone *g = &t->gone;
	while (g->n && g->e[g->n - 1].at > top)
		g->n--;
	for (uint32_t i = g->n; i-- > 0 && g->e[i].at == top;)
		if (g->e[i].fn == fn) {
			g->n = i;
			return 1;
		}
	if (top <= 0 || !noted(t, top))
		return 0;
	for (d = top - 1; d > 0; d--) {
		if (top - d >= FNT_FLT_SCAN || !noted(t, d))
			return 0;
		if (t->flt_notes[d].fn == fn) {
			if (write)
				close_above(t, d, 0);
			else
				fnt_filter_longjmp(t, d);
			return 0;
		}
	}
	return t->flt_fn_lo < 1;
}

void fnt_filter_park(struct fnt_thread *t, struct fnt_filter_park *p)
{
	memset(p, 0, sizeof(*p));
	/* (recording off: each stack counts its own calls; and the calls
	 * landing pads closed on it are its own) */
	p->off_epoch = t->off_epoch;
	p->off_rel = t->off_rel;
	p->gone = t->gone;
	if (!fnt_filtering)
		return;
	p->fdepth = t->flt.fdepth;
	p->fbase = t->flt_base;
	p->f_root = t->flt.f_root;
	p->n_root = t->flt.n_root;
	p->h_open = t->flt.h_open;
	p->o_open = t->flt.o_open;
	p->c_root = t->flt.c_root;
	p->c_keep = t->flt.c_keep;
	p->d_lim = t->flt.d_lim;
	p->n_dstack = t->flt.n_dstack;
	_Static_assert(sizeof(p->dstack) == sizeof(t->flt.dstack), "dstack");
	memcpy(p->dstack, t->flt.dstack, sizeof(p->dstack));
	p->hbits = t->flt.hbits;
	p->valid = 1;
}

void fnt_filter_unpark(struct fnt_thread *t, const struct fnt_filter_park *p)
{
	/* a stack new to the registry: no call open on it, the count anew */
	t->off_epoch = p->off_epoch;
	t->off_rel = p->off_rel;
	t->gone = p->gone;
	if (!fnt_filtering)
		return;
	/* the functions noted by depth were the other stack's (below the
	 * depth this one goes on at, at least) */
	t->flt_fn_lo = p->valid ? p->fdepth : t->flt.fdepth;
	if (!p->valid) {
		/* a new stack: the depth of the switch, and the -H calls open
		 * below it still take their levels out, as in the reader */
		t->flt.f_root = t->flt.n_root = t->flt.c_root = t->flt.c_keep = t->flt.d_lim = 0;
		t->flt.n_dstack = 0;
		t->flt.hbits = NULL;
		t->flt_base = t->flt.fdepth;
		return;
	}
	/* (entered again with no call open on it, a stack goes on from the
	 * depth it was first entered at, as in the reader, tool/calls.c: the
	 * reader cannot tell it from one with calls open that were not
	 * written, -H, -N, recording off) */
	t->flt_base = p->fbase;
	t->flt.fdepth = p->fdepth;
	t->flt.f_root = p->f_root;
	t->flt.n_root = p->n_root;
	t->flt.h_open = p->h_open;
	t->flt.o_open = p->o_open;
	t->flt.c_root = p->c_root;
	t->flt.c_keep = p->c_keep;
	t->flt.d_lim = p->d_lim;
	t->flt.n_dstack = p->n_dstack;
	memcpy(t->flt.dstack, p->dstack, sizeof(p->dstack));
	t->flt.hbits = p->hbits;
}

void fnt_filter_park_drop(struct fnt_filter_park *p)
{
	if (p->valid && p->hbits && !fnt_no_clock)
		munmap(p->hbits, HBITS_BYTES);
	p->hbits = NULL;
}

void fnt_filter_vfork_child(struct fnt_filter_state *f)
{
	if (!f->hbits)
		return;
	void *m = fnt_no_clock ? MAP_FAILED :
		  mmap(NULL, HBITS_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		f->hbits = NULL;        /* (its hidden calls then show, and its calls
					 * entered while recording was off count for -D) */
		f->h_open = f->o_open = 0;
		return;
	}
	memcpy(m, f->hbits, HBITS_BYTES);
	f->hbits = m;
}

void fnt_filter_vfork_done(struct fnt_filter_state *child, const struct fnt_filter_state *parent)
{
	if (child->hbits && child->hbits != parent->hbits && !fnt_no_clock)
		munmap(child->hbits, HBITS_BYTES);
	child->hbits = NULL;
}

void fnt_filter_thread_exit(struct fnt_thread *t)
{
	if (t->flt.tframes) {
		munmap(t->flt.tframes, TFRAMES * sizeof(struct fnt_tframe));
		t->flt.tframes = NULL;
	}
	fnt_trigger_thread_exit(t);
}

/* the thread is gone (a forked child keeps its -H bits: the calls they
 * mark are still open in it) */
void fnt_filter_thread_gone(struct fnt_thread *t)
{
	fnt_filter_thread_exit(t);
	if (t->flt_notes && !t->file) {
		munmap(t->flt_notes, t->flt_cap * sizeof(struct fnt_fnote));
		t->flt_notes = NULL;
		t->flt_cap = 0;
	}
	if (t->flt.hbits) {
		munmap(t->flt.hbits, HBITS_BYTES);
		t->flt.hbits = NULL;
		t->flt.h_open = 0;
	}
}

/* ---- thread names: --no-thread is checked again after each rename ---- */
#ifndef FNT_STATIC_ARCHIVE

FNT_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	static int (*real)(pthread_t, const char *);
	if (!real)
		real = (int (*)(pthread_t, const char *))dlsym(RTLD_NEXT, "pthread_setname_np");
	if (!real)
		return ENOSYS;
	int r = real(th, name);
	__atomic_fetch_add(&fnt_name_gen, 1, __ATOMIC_RELAXED);
	return r;
}

FNT_EXPORT int prctl(int option, ...)
{
	static int (*real)(int, ...);
	unsigned long a[4];
	va_list ap;
	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (!real)
		real = (int (*)(int, ...))dlsym(RTLD_NEXT, "prctl");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	fnt_sandbox_prctl(option, a[0], a[1]);
	fnt_clock_prctl(option, a[0]);
	int r = real(option, a[0], a[1], a[2], a[3]);
	fnt_sandbox_done(r == 0);
	fnt_clock_prctl_done(option, a[0], r);
	if (option == PR_SET_NAME)
		__atomic_fetch_add(&fnt_name_gen, 1, __ATOMIC_RELAXED);
	return r;
}
#endif
