/*
 * view.c - what every reading command shares: the common options (-d,
 * --debug-dir, --prefix-map, --tid, -F, -N, -D), opening the trace, and
 * naming functions.  Each function id is named once (symbols caches below
 * that too), so naming costs grow with distinct functions, not events.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tool/tool.h"
#include "symbols/cxxname.h"
#include "format/safeio.h"

static void parse_tids(struct view_opts *o, const char *arg)
{
	char *s = xstrdup(arg), *save = NULL;
	for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		o->tids = xrealloc(o->tids, (o->n_tids + 1) * sizeof(*o->tids));
		o->tids[o->n_tids++] = (uint32_t)parse_uint("--tid", tok, UINT32_MAX);
	}
	free(s);
	if (!o->n_tids)
		die_usage("option '--tid' needs a list of thread ids, like 4242,4243");
}

/* TIME: a decimal number and a unit (ns, us, ms, s), read exactly */
static uint64_t parse_time(const char *opt, const char *arg)
{
	return parse_time_unit(opt, arg, "a time since the start of the recording");
}

uint64_t parse_time_unit(const char *opt, const char *arg, const char *what)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	const char *p = arg;
	uint64_t ip = 0, frac = 0, frac_scale = 1;
	int digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (ip > (UINT64_MAX - 9) / 10)
			goto bad;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (frac_scale < 1000000000) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				frac_scale *= 10;
			}
	if (!digits)
		goto bad;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p, units[i].unit)) {
			if (ip > UINT64_MAX / units[i].ns / 2)
				goto bad;
			return ip * units[i].ns + frac * units[i].ns / frac_scale;
		}
bad:
	die_usage("option '%s' takes %s with its unit (like 1.5ms, 200us, 2s or 500ns), not '%s'",
		  opt, what, arg);
}

/* --demangle MODE; --no-demangle is --demangle no */
static int parse_demangle(const char *arg)
{
	static const char *const modes[] = {
		[SYMBOLS_DEMANGLE_SHORT] = "short", [SYMBOLS_DEMANGLE_FULL] = "full",
		[SYMBOLS_DEMANGLE_SIMPLE] = "simple", [SYMBOLS_DEMANGLE_NO] = "no",
	};
	for (int i = 0; i < (int)(sizeof(modes) / sizeof(*modes)); i++)
		if (!strcmp(arg, modes[i]))
			return i;
	die_usage("option '--demangle' takes full, short, simple or no, not '%s'", arg);
}

int view_opt(struct view_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case 'd': o->dir = arg; return 1;
	case 0x100: strlist_add(&o->debug_dirs, arg); return 1;
	case 0x101:
		if (!strchr(arg, '='))
			die_usage("option '--prefix-map' takes OLD=NEW, not '%s'", arg);
		strlist_add(&o->prefix_map, arg);
		return 1;
	case 0x102: o->no_demangle = 1; return 1;
	case 0x140: o->no_pager = 1; return 1;
	case 0x141:
		if (!strcmp(arg, "auto"))
			o->color = 0;
		else if (!strcmp(arg, "always"))
			o->color = 1;
		else if (!strcmp(arg, "never"))
			o->color = -1;
		else
			die_usage("option '--color' takes auto, always or never, not '%s'", arg);
		return 1;
	case 0x120: o->demangle = parse_demangle(arg); o->no_demangle = 0; return 1;
	case 0x110: parse_tids(o, arg); return 1;
	case 'F': glob_regex_hint("-F", arg); strlist_add(&o->filter, arg); return 1;
	case 'N': glob_regex_hint("-N", arg); strlist_add(&o->notrace, arg); return 1;
	case 'H': glob_regex_hint("-H", arg); strlist_add(&o->hide, arg); return 1;
	case 'C': glob_regex_hint("-C", arg); strlist_add(&o->callers, arg); return 1;
	case 'T': {
		struct trigger g;
		trigger_parse(&g, arg, 0);
		glob_regex_hint("-T", g.glob);
		o->trigger_globs = xrealloc(o->trigger_globs, (o->n_trigger_globs + 1) * sizeof(char *));
		o->trigger_globs[o->n_trigger_globs++] = g.glob;
		if (g.flags & TRIG_FILTER)
			strlist_add(&o->filter, g.glob);
		if (g.flags & TRIG_NOTRACE)
			strlist_add(&o->notrace, g.glob);
		if (g.flags & TRIG_HIDE)
			strlist_add(&o->hide, g.glob);
		g.flags &= ~(TRIG_FILTER | TRIG_NOTRACE | TRIG_HIDE);
		if (g.flags) {
			o->triggers = xrealloc(o->triggers, (o->n_triggers + 1) * sizeof(*o->triggers));
			o->triggers[o->n_triggers++] = g;
		}
		return 1;
	}
	case 'D': o->max_depth = parse_depth("-D/--depth", arg); return 1;
	case 't': o->min_ns = parse_time_unit("-t/--time-filter", arg, "a duration"); return 1;
	case 0x111: o->since_ns = parse_time("--since", arg); return 1;
	case 0x112: o->until_ns = parse_time("--until", arg); o->has_until = 1; return 1;
	}
	return 0;
}

/* uftrace writes a directory with an "info" file, "task.txt" and *.dat files */
static int is_uftrace_dir(const char *dir)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/info", dir);
	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	snprintf(path, sizeof(path), "%s/task.txt", dir);
	return !lstat(path, &st) && S_ISREG(st.st_mode);
}

/* Where the trace keeps what record saved and archive bundled: its
 * directory (that of a .fnt file given alone), or, for a snapshot-*
 * directory, the trace directory above it.  dirs[0..1]: DIR/symtab of each,
 * dirs[2]: DIR/debug of an unpacked archive (a debug root), if there is one. */
static void trace_home(struct view_opts *o)
{
	struct stat st;
	char *d = xstrdup(o->dir), *base;
	size_t n;

	/* o may be a copy of another view's options: the paths it holds are
	 * that view's, this one gets its own (view_close_borrowed frees them) */
	o->home[0] = o->home[1] = o->home[2] = NULL;
	if (!stat(d, &st) && !S_ISDIR(st.st_mode)) {
		base = strrchr(d, '/');
		if (base)
			*base = 0;
		else
			strcpy(d, ".");
	}
	n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = 0;
	base = strrchr(d, '/');
	base = base ? base + 1 : d;
	o->home[0] = xmalloc(n + 16);
	sprintf(o->home[0], "%s/symtab", d);
	if (!strncmp(base, "snapshot-", 9)) {
		o->home[1] = xmalloc(n + 16);
		sprintf(o->home[1], "%s/../symtab", d);
	}
	o->home[2] = xmalloc(n + 16);
	sprintf(o->home[2], "%s/%sdebug", d, o->home[1] ? "../" : "");
	if (stat(o->home[2], &st) || !S_ISDIR(st.st_mode)) {
		free(o->home[2]);
		o->home[2] = NULL;
	}
	free(d);
}

void view_open(struct view *v, struct view_opts *o)
{
	char err[4400];
	struct symbols_options so = { 0 };

	memset(v, 0, sizeof(*v));
	v->opts = o;
	if (o->has_until && o->until_ns < o->since_ns)
		die_usage("option '--until' must not be before '--since'");
	if (!o->dir)
		o->dir = "fntrace.data";
	if (trace_open(&v->trace, o->dir, err, sizeof(err)) && is_uftrace_dir(o->dir))
		die("'%s' is a uftrace trace, not an fntrace one (read it with 'uftrace replay -d %s'; "
		    "'fntrace record' writes fntrace's)", o->dir, o->dir);
	if (!v->trace)
		die("%s", err);
	if (!v->trace->n_procs && is_uftrace_dir(o->dir))
		die("'%s' is a uftrace trace, not an fntrace one (read it with 'uftrace replay -d %s'; "
		    "'fntrace record' writes fntrace's)", o->dir, o->dir);
	for (size_t i = 0; i < v->trace->n_warnings; i++)
		warning("%s", v->trace->warnings[i]);
	if (o->n_tids && !trace_select_tids(v->trace, o->tids, o->n_tids))
		die("no thread in '%s' has the tid given with --tid ('fntrace info' lists them)", o->dir);
	/* o may be a copy of another view's options (report --diff): its
	 * lists are not grown here, DIR/debug goes into a list of this call */
	trace_home(o);
	const char **debug_dirs = xcalloc(o->debug_dirs.n + 1, sizeof(*debug_dirs));
	for (size_t i = 0; i < o->debug_dirs.n; i++)
		debug_dirs[i] = o->debug_dirs.v[i];
	if (o->home[2])
		debug_dirs[o->debug_dirs.n] = o->home[2];
	so.symtab_dirs = (const char *const *)o->home;
	so.n_symtab_dirs = o->home[1] ? 2 : 1;
	so.debug_dirs = debug_dirs;
	so.n_debug_dirs = o->debug_dirs.n + !!o->home[2];
	so.prefix_map = o->prefix_map.v;
	so.n_prefix_map = o->prefix_map.n;
	so.no_demangle = o->no_demangle;
	so.demangle = o->demangle;
	so.trace_start_ns = v->trace->t0_real;
	v->syms = symbols_new(&so);
	free(debug_dirs);
	if (!v->syms)
		die("cannot initialise the symbolizer");
	args_symbols(v, view_pointer_name);
}

void view_attach(struct view *v, struct view_opts *o, struct trace *t, struct symbols *syms)
{
	memset(v, 0, sizeof(*v));
	v->opts = o;
	v->trace = t;
	v->syms = syms;
	if (o->n_tids)
		trace_select_tids(t, o->tids, o->n_tids);
	args_symbols(v, view_pointer_name);
}

/* the names and filter matches cached per function */
static void free_names(struct view *v)
{
	free(v->landing);       /* (its names are the symbols' DWARF's) */
	v->landing = NULL;
	for (size_t i = 0; i < v->n_names; i++) {
		free(v->names[i]);
		free(v->full_names[i]);
		free(v->sig_names[i]);
	}
	for (size_t i = 0; i < v->n_text_names; i++)
		free(v->text_names[i]);
	free(v->text_names);
	free(v->text_done);
	v->text_names = NULL;
	v->text_done = NULL;
	v->n_text_names = 0;
	free(v->names);
	free(v->full_names);
	free(v->sig_names);
	free(v->src_file);
	free(v->src_line);
	free(v->name_len);
	free(v->src_done);
	free(v->filter_match);
	free(v->trig_of);
	calls_release(v);
}

void view_detach(struct view *v)
{
	args_symbols(NULL, NULL);
	free_names(v);
	args_forget();
	trace_close(v->trace);
	memset(v, 0, sizeof(*v));
}

void view_check_output(const struct view *v, const char *out, const char *what)
{
	const struct trace *t = v->trace;
	const char **mods = xcalloc(t->n_files + 1, sizeof(*mods));
	for (size_t i = 0; i < t->n_files; i++)
		mods[i] = t->files[i].path;
	out_file_check(out, what, t->dir, mods, t->n_files, 0);
	free(mods);
}

void view_close_borrowed(struct view *v)
{
	free_names(v);
	symbols_free(v->syms);
	trace_close(v->trace);
	for (int i = 0; i < 3; i++) {         /* its own: trace_home */
		free(v->opts->home[i]);
		v->opts->home[i] = NULL;
	}
	memset(v, 0, sizeof(*v));
}

void view_close(struct view *v)
{
	args_symbols(NULL, NULL);
	free_names(v);
	symbols_free(v->syms);
	args_forget();
	trace_close(v->trace);
	free(v->opts->debug_dirs.v);
	free(v->opts->prefix_map.v);
	free(v->opts->filter.v);
	free(v->opts->notrace.v);
	free(v->opts->hide.v);
	free(v->opts->callers.v);
	free(v->opts->tids);
	for (size_t i = 0; i < v->opts->n_trigger_globs; i++)
		free(v->opts->trigger_globs[i]);
	free(v->opts->trigger_globs);
	free(v->opts->triggers);
	v->opts->trigger_globs = NULL;
	v->opts->triggers = NULL;
	v->opts->n_trigger_globs = v->opts->n_triggers = 0;
	for (int i = 0; i < 3; i++) {
		free(v->opts->home[i]);
		v->opts->home[i] = NULL;
	}
	memset(&v->opts->debug_dirs, 0, sizeof(v->opts->debug_dirs));
	memset(&v->opts->prefix_map, 0, sizeof(v->opts->prefix_map));
	memset(&v->opts->filter, 0, sizeof(v->opts->filter));
	memset(&v->opts->notrace, 0, sizeof(v->opts->notrace));
	memset(&v->opts->hide, 0, sizeof(v->opts->hide));
	memset(&v->opts->callers, 0, sizeof(v->opts->callers));
	v->opts->tids = NULL;
	v->opts->n_tids = 0;
}

static void grow(struct view *v, uint32_t func)
{
	size_t n = v->n_names;
	if (func < n)
		return;
	size_t nn = n ? n : 64;
	while (nn <= func)
		nn *= 2;
	v->names = xrealloc(v->names, nn * sizeof(*v->names));
	v->full_names = xrealloc(v->full_names, nn * sizeof(*v->full_names));
	v->sig_names = xrealloc(v->sig_names, nn * sizeof(*v->sig_names));
	v->src_file = xrealloc(v->src_file, nn * sizeof(*v->src_file));
	v->src_line = xrealloc(v->src_line, nn * sizeof(*v->src_line));
	v->name_len = xrealloc(v->name_len, nn * sizeof(*v->name_len));
	v->src_done = xrealloc(v->src_done, nn);
	v->filter_match = xrealloc(v->filter_match, nn);
	v->trig_of = xrealloc(v->trig_of, nn * sizeof(*v->trig_of));
	memset(v->trig_of + n, 0, (nn - n) * sizeof(*v->trig_of));
	memset(v->names + n, 0, (nn - n) * sizeof(*v->names));
	memset(v->full_names + n, 0, (nn - n) * sizeof(*v->full_names));
	memset(v->sig_names + n, 0, (nn - n) * sizeof(*v->sig_names));
	memset(v->src_done + n, 0, nn - n);
	memset(v->filter_match + n, 0, nn - n);
	v->n_names = nn;
}

static int file_sym(struct view *v, uint32_t file)
{
	struct trace_file_ref *f = &v->trace->files[file];
	if (f->sym < 0)
		f->sym = symbols_add_module(v->syms, f->path, f->build_id, f->build_id_len);
	return f->sym;
}

static void name_func(struct view *v, uint32_t func, int with_line)
{
	const struct trace_func *f = &v->trace->funcs[func];
	struct sym_func sf;
	char buf[64];

	grow(v, func);
	if (v->names[func] && (!with_line || v->src_done[func]))
		return;
	if (f->file == TRACE_NO_FILE) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, f->vaddr);
		v->names[func] = xstrdup(buf);
		v->name_len[func] = strlen(buf);
		v->full_names[func] = xstrdup(buf);
		v->src_done[func] = 1;
		v->src_file[func] = NULL;
		v->src_line[func] = 0;
		return;
	}
	const char *scope = trace_scope_name(v->trace, f->file, f->vaddr);
	if (scope) {                    /* FNT_SCOPE_NAMED: its own name, no source line */
		if (!v->names[func]) {
			v->names[func] = xstrdup(scope);
			v->name_len[func] = strlen(scope);
			v->full_names[func] = xstrdup(scope);
		}
		v->src_done[func] = 1;
		v->src_file[func] = NULL;
		v->src_line[func] = 0;
		return;
	}
	symbols_func(v->syms, file_sym(v, f->file), f->vaddr, with_line, &sf);
	if (!v->names[func]) {
		v->names[func] = xstrdup(sf.short_name ? sf.short_name : sf.name);
		v->name_len[func] = strlen(v->names[func]);
		v->full_names[func] = xstrdup(sf.name);
		if (sf.sig_name && sf.sig_name != sf.name && strcmp(sf.sig_name, sf.name))
			v->sig_names[func] = xstrdup(sf.sig_name);
	}
	if (with_line) {
		v->src_file[func] = sf.file;
		v->src_line[func] = sf.line;
		v->src_done[func] = 1;
	}
}

const char *view_name(struct view *v, uint32_t func)
{
	if (func >= v->n_names || !v->names[func])
		name_func(v, func, 0);
	return v->names[func];
}

const char *view_text_name(struct view *v, uint32_t func)
{
	const char *name = view_name(v, func);
	if (func >= v->n_text_names) {
		size_t n = v->n_text_names ? v->n_text_names : 256;
		while (n <= func)
			n *= 2;
		v->text_names = xrealloc(v->text_names, n * sizeof(*v->text_names));
		v->text_done = xrealloc(v->text_done, n);
		memset(v->text_names + v->n_text_names, 0, (n - v->n_text_names) * sizeof(*v->text_names));
		memset(v->text_done + v->n_text_names, 0, n - v->n_text_names);
		v->n_text_names = n;
	}
	if (!v->text_done[func]) {
		size_t n = strlen(name);
		if (text_escaped_len(name, n) != n)
			v->text_names[func] = text_escape_dup(name);
		v->text_done[func] = 1;
	}
	return v->text_names[func] ? v->text_names[func] : name;
}

const char *view_name_len(struct view *v, uint32_t func, size_t *len)
{
	if (func >= v->n_names || !v->names[func])
		name_func(v, func, 0);
	*len = v->name_len[func];
	return v->names[func];
}

const char *view_full_name(struct view *v, uint32_t func)
{
	if (func >= v->n_names || !v->full_names[func])
		name_func(v, func, 0);
	return v->full_names[func];
}

int view_name_has_params(struct view *v, uint32_t func)
{
	/* with --demangle full a C++ function's name is its whole signature,
	 * "n::f(int)", "geo::Box<int>::area() const"; a C name, an address
	 * (module+0x...) and every other mode's name has no '(' of its own
	 * (the short form's "operator()" and lambdas do: hence the mode) */
	if (v->opts->no_demangle || v->opts->demangle != SYMBOLS_DEMANGLE_FULL || func >= v->trace->n_funcs)
		return 0;
	const struct trace_func *f = &v->trace->funcs[func];
	if (trace_scope_name(v->trace, f->file, f->vaddr))
		return 0;           /* FNT_SCOPE_NAMED: the program's text, whatever it holds */
	return strchr(view_name(v, func), '(') != NULL;
}

uint32_t view_program_file(const struct view *v)
{
	/* processes are sorted by start, and a process's modules keep the
	 * order of its records: the runtime records the objects in the
	 * order dl_iterate_phdr gives them, the executable first */
	const struct trace *t = v->trace;
	if (!t->n_procs || !t->procs[0].n_modules)
		return TRACE_NO_FILE;
	return t->procs[0].modules[0].file;
}

const char *view_structor(struct view *v, uint32_t func)
{
	const struct trace_func *f = &v->trace->funcs[func];
	struct sym_func sf;
	if (f->file == TRACE_NO_FILE || trace_scope_name(v->trace, f->file, f->vaddr))
		return NULL;
	symbols_func(v->syms, file_sym(v, f->file), f->vaddr, 0, &sf);
	return sf.structor;
}

static struct view *label_view;
static const uint32_t *label_funcs;

static int cmp_label(const void *a, const void *b)
{
	uint32_t x = label_funcs[*(const size_t *)a], y = label_funcs[*(const size_t *)b];
	int c = strcmp(view_name(label_view, x), view_name(label_view, y));
	return c ? c : x < y ? -1 : x > y;
}

static const char *label_where(struct view *v, uint32_t func)
{
	const struct trace_func *f = &v->trace->funcs[func];
	const char *src = NULL, *where, *slash;
	int line;
	if (!view_srcline(v, func, &src, &line) && src)
		where = src;
	else
		where = f->file == TRACE_NO_FILE || f->file >= v->trace->n_files ? "" : v->trace->files[f->file].path;
	slash = strrchr(where, '/');
	return slash ? slash + 1 : where;
}

char *view_match_key(struct view *v, uint32_t func)
{
	/* the source file only: the module is matched apart (diff_module_cmp:
	 * a program matches the other trace's program whatever its name) */
	const char *sig = view_sig_name(v, func), *kind = view_structor(v, func), *where = "", *src = NULL, *slash;
	int line;
	if (!view_srcline(v, func, &src, &line) && src)
		where = (slash = strrchr(src, '/')) ? slash + 1 : src;
	size_t m = strlen(sig) + (kind ? strlen(kind) : 0) + strlen(where) + 3;
	char *k = xmalloc(m);
	snprintf(k, m, "%s\t%s\t%s", sig, kind ? kind : "", where);
	return k;
}

/* "name [kind, where]" at a level of detail: 0 the source file (or the
 * module when there is no line), 1 also the module (an inline function of
 * one header, in the program and in a library), 2 also the address (a
 * static function of a header, twice in one module) */
static char *label_at(struct view *v, const char *name, uint32_t func, int level)
{
	const struct trace_func *f = &v->trace->funcs[func];
	const char *kind = view_structor(v, func), *where = label_where(v, func), *mod = "", *slash;
	char extra[64] = "";
	size_t m;
	char *l;

	if (level && f->file != TRACE_NO_FILE && f->file < v->trace->n_files) {
		mod = v->trace->files[f->file].path;
		if ((slash = strrchr(mod, '/')))
			mod = slash + 1;
	}
	if (level >= 2)
		snprintf(extra, sizeof(extra), "+0x%llx", (unsigned long long)f->vaddr);
	if (level && !strcmp(mod, where) && !extra[0])
		mod = "";       /* no source line: where is the module already */
	m = strlen(name) + strlen(where) + strlen(mod) + strlen(extra) + (kind ? strlen(kind) + 2 : 0) + 8;
	l = xmalloc(m);
	/* "B::~B [deleting, b.cpp]": the file alone does not tell them apart */
	snprintf(l, m, "%s [%s%s%s%s%s%s]", name, kind ? kind : "", kind ? ", " : "", where,
		 mod[0] || extra[0] ? ", " : "", mod, extra);
	return l;
}

char **view_labels(struct view *v, const uint32_t *funcs, size_t n)
{
	char **label = xcalloc(n ? n : 1, sizeof(*label));
	size_t *ix = xmalloc((n ? n : 1) * sizeof(*ix)), i, j;

	for (i = 0; i < n; i++)
		ix[i] = i;
	label_view = v;
	label_funcs = funcs;
	qsort(ix, n, sizeof(*ix), cmp_label);
	for (i = 0; i < n; i = j) {
		uint32_t f0 = funcs[ix[i]];
		const char *name = view_name(v, f0);
		int same_full = 1, same_sig = 1, others = 0;
		for (j = i + 1; j < n && !strcmp(view_name(v, funcs[ix[j]]), name); j++) {
			uint32_t f = funcs[ix[j]];
			others |= f != f0;
			same_full &= !strcmp(view_full_name(v, f), view_full_name(v, f0));
			same_sig &= !strcmp(view_sig_name(v, f), view_sig_name(v, f0));
		}
		if (!others)
			continue;
		if (!same_sig || !same_full) {
			for (size_t k = i; k < j; k++) {
				uint32_t f = funcs[ix[k]];
				/* without a template function's return type */
				label[ix[k]] = xstrdup(!same_sig ? view_sig_name(v, f) : view_full_name(v, f));
			}
			continue;
		}
		/* the file, then the module, then the address: the least that
		 * tells each one from the others of its name */
		char **cand = xcalloc(j - i, sizeof(*cand));
		for (int level = 0; level <= 2; level++) {
			for (size_t k = i; k < j; k++)
				if (!label[ix[k]])
					cand[k - i] = label_at(v, name, funcs[ix[k]], level);
			for (size_t k = i; k < j; k++) {
				int unique = 1;
				if (label[ix[k]])
					continue;
				for (size_t o = i; o < j && unique; o++)
					unique = funcs[ix[o]] == funcs[ix[k]] ||
						 strcmp(label[ix[o]] ? label[ix[o]] : cand[o - i], cand[k - i]);
				if (unique || level == 2) {
					label[ix[k]] = cand[k - i];
					cand[k - i] = NULL;
				}
			}
			for (size_t k = i; k < j; k++) {
				free(cand[k - i]);
				cand[k - i] = NULL;
			}
		}
		free(cand);
	}
	free(ix);
	return label;
}

void view_labels_free(char **labels, size_t n)
{
	for (size_t i = 0; labels && i < n; i++)
		free(labels[i]);
	free(labels);
}

int view_module_readable(struct view *v, uint32_t func)
{
	const struct trace_func *f = &v->trace->funcs[func];
	if (f->file == TRACE_NO_FILE || trace_scope_name(v->trace, f->file, f->vaddr))
		return 0;
	int m = file_sym(v, f->file);
	return m >= 0 && !symbols_module_warning(v->syms, m);
}

const char *view_sig_name(struct view *v, uint32_t func)
{
	const char *full = view_full_name(v, func);
	return v->sig_names[func] ? v->sig_names[func] : full;
}

int view_srcline(struct view *v, uint32_t func, const char **file, int *line)
{
	if (func >= v->n_names || !v->src_done[func])
		name_func(v, func, 1);
	*file = v->src_file[func];
	*line = v->src_line[func];
	return *file && *line ? 0 : -1;
}

const char *view_addr_func(struct view *v, uint32_t file, uint64_t vaddr)
{
	struct sym_func sf;
	if (file == TRACE_NO_FILE)
		return NULL;
	if (symbols_func(v->syms, file_sym(v, file), vaddr, 0, &sf))
		return NULL;            /* no symbol: the caller says module+0xoffset */
	return sf.short_name ? sf.short_name : sf.name;
}

int view_built_by_gcc(struct view *v, uint32_t func)
{
	const struct trace_func *tf = &v->trace->funcs[func];
	if (tf->file == TRACE_NO_FILE)
		return 0;
	return symbols_built_by_gcc(v->syms, file_sym(v, tf->file), tf->vaddr);
}

size_t view_inline_names(struct view *v, uint32_t file, uint64_t vaddr, const char **names, size_t max)
{
	if (file == TRACE_NO_FILE)
		return 0;
	return symbols_inline_names(v->syms, file_sym(v, file), vaddr, names, max);
}

int view_addr_sym(struct view *v, uint32_t file, uint64_t vaddr, struct sym_func *out)
{
	if (file == TRACE_NO_FILE)
		return -1;
	return symbols_func(v->syms, file_sym(v, file), vaddr, 0, out);
}

int view_pointer_name(struct view *v, const struct trace_process *p, uint64_t ns, uint64_t addr, char *out,
		      size_t cap)
{
	const struct trace_module *m = trace_module_at(p, addr, ns);
	struct sym_func sf;
	if (!m || symbols_func(v->syms, file_sym(v, m->file), addr - m->bias, 0, &sf) || !sf.size ||
	    addr - m->bias - sf.start >= sf.size)
		return -1;      /* not in a module, or no symbol covers it (a string literal, padding) */
	uint64_t off = addr - m->bias - sf.start;
	const char *name = sf.short_name ? sf.short_name : sf.name;
	int n = off ? snprintf(out, cap, "&%s+0x%" PRIx64, name, off) : snprintf(out, cap, "&%s", name);
	return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* The file holding the code of trace file `file` as it was traced: the
 * one its names come from (the recorded path after --prefix-map, or its
 * copy by build-id under a --debug-dir or an archive's DIR/debug), and only
 * when its build-id is the recorded one.  NULL when there is none; *why
 * then says why, as the warning of view_report_problems does (or NULL). */
const char *view_file_code(struct view *v, uint32_t file, const char **why)
{
	const char *dbg;
	*why = NULL;
	if (file == TRACE_NO_FILE || file >= v->trace->n_files)
		return NULL;
	int sym = file_sym(v, file);
	const char *path = symbols_module_files(v->syms, sym, &dbg);
	if (!path)
		*why = symbols_module_warning(v->syms, sym);
	return path;
}

int view_addr_srcline(struct view *v, uint32_t file, uint64_t vaddr, const char **src, int *line)
{
	if (file == TRACE_NO_FILE)
		return -1;
	return symbols_srcline(v->syms, file_sym(v, file), vaddr, src, line);
}

#define MAX_FORMS 16
struct name_forms {
	const char *v[MAX_FORMS];
	char *owned[MAX_FORMS];
	size_t n, n_owned;
};
static void forms_get(struct view *v, uint32_t func, struct name_forms *nf);
static void forms_free(struct name_forms *nf);
static int glob_forms(const struct strlist *l, const struct name_forms *nf);

/* -F/-N globs that matched no function that ran: say so, or the user sees an
 * empty output and thinks nothing was recorded (only the functions the walk
 * met were matched, which are all that can be shown) */
static void unmatched_globs(struct view *v, const struct strlist *globs, const char *opt)
{
	for (size_t i = 0; i < globs->n; i++) {
		int hit = 0;
		for (size_t f = 0; f < v->n_names && !hit; f++) {
			if (!v->filter_match || !v->filter_match[f])
				continue;
			struct strlist one = { &globs->v[i], 1 };
			struct name_forms nf;
			forms_get(v, (uint32_t)f, &nf);
			hit = glob_forms(&one, &nf);
			forms_free(&nf);
		}
		if (!hit)
			warning("%s '%s' matches no function that was called in '%s' (see 'fntrace report' for "
				"the names)", opt, globs->v[i], v->opts->dir);
	}
}

/* --since/--until outside every thread's events: say where the calls are */
static void empty_time_range(struct view *v)
{
	struct trace *t = v->trace;
	uint64_t first = UINT64_MAX, last = 0;
	char a[32], b[32];
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i].n_threads; k++) {
			const struct trace_thread *th = &t->procs[i].threads[k];
			if (!th->events)
				continue;
			first = th->first_ns < first ? th->first_ns : first;
			last = th->last_ns > last ? th->last_ns : last;
		}
	if (first > last)
		return;
	if (v->opts->since_ns <= last && (!v->opts->has_until || v->opts->until_ns >= first))
		return;
	format_duration(a, sizeof(a), first);
	format_duration(b, sizeof(b), last);
	warning("the time range selects no call: the calls in '%s' run from %s to %s after the start "
		"of the recording", v->opts->dir, a + strspn(a, " "), b + strspn(b, " "));
}

void view_report_problems(struct view *v)
{
	struct trace *t = v->trace;
	view_history_notes(v);
	unmatched_globs(v, &v->opts->filter, "-F");
	unmatched_globs(v, &v->opts->notrace, "-N");
	if (v->opts->n_trigger_globs) {
		struct strlist g = { (const char **)v->opts->trigger_globs, v->opts->n_trigger_globs };
		unmatched_globs(v, &g, "-T");
	}
	if (v->opts->since_ns || v->opts->has_until)
		empty_time_range(v);
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		uint64_t lost = fnt_header_lost(&p->hdr);
		if (p->damaged_bytes)
			warning("'%s': %" PRIu64 " byte%s of event data could not be decoded (damaged or cut) and "
				"were skipped; the events before and after are shown", p->file, p->damaged_bytes,
				p->damaged_bytes == 1 ? "" : "s");
		if (p->missing_chunks)
			warning("'%s': %" PRIu64 " buffer chunk(s) are missing from the file", p->file,
				p->missing_chunks);
		if (fnt_mapguard_cut(p->map))
			warning("'%s': the file shrank while it was read: %" PRIu64 " bytes past the cut read as "
				"empty; the events before the cut are shown", p->file, fnt_mapguard_cut(p->map));
		if (lost) {
			char kinds[600];
			lost_kinds_text(&p->hdr, 0, kinds, sizeof(kinds));
			warning("process %u: %" PRIu64 " events could not be recorded (%s; 'fntrace info' says "
				"more)", p->hdr.pid, lost, kinds);
		}
	}
	for (size_t i = 0; i < t->n_files; i++) {
		if (t->files[i].sym < 0)
			continue;
		const char *w = symbols_module_warning(v->syms, t->files[i].sym);
		if (w)
			warning("%s", w);
	}
}

void view_history_notes(struct view *v)
{
	struct trace *t = v->trace;
	for (size_t i = 0; i < t->n_procs; i++) {
		struct trace_process *p = &t->procs[i];
		if (!(p->hdr.flags & FNT_FLAG_RING))
			continue;
		for (size_t k = 0; k < p->n_threads; k++) {
			struct trace_thread *th = &p->threads[k];
			char when[32];
			if (!th->first_seq || !th->selected)
				continue;
			format_duration(when, sizeof(when), th->history_ns);
			fprintf(stderr, "fntrace: note: thread %u: history starts at %s; earlier events were "
				"overwritten (flight recorder of %" PRIu64 " x %u bytes)\n", th->tid,
				when + strspn(when, " "), p->hdr.reserved[FNT_RES_RING_CHUNKS], p->hdr.chunk_size);
		}
	}
}

/* One word of the session's record options (written shell-quoted by
 * record: 'a b', 'it'\''s'): its unquoted text into buf, the raw word's end
 * returned (NULL: no more words). */
static const char *session_word(const char *p, char *buf, size_t n, const char **start)
{
	size_t k = 0;
	int q = 0;
	while (*p == ' ')
		p++;
	if (!*p)
		return NULL;
	*start = p;
	for (; *p && (q || *p != ' '); p++) {
		if (*p == '\'' ) {
			q = !q;
			continue;
		}
		if (*p == '\\' && !q && p[1])
			p++;
		if (k + 1 < n)
			buf[k++] = *p;
	}
	buf[k] = 0;
	return p;
}

/* The record options that choose which calls are recorded (-F, -N, -C,
 * -t, -P, --module, --no-thread, --trace=off, a trace_on or time=
 * trigger), as they were given, into out; 0 when there are none.  With them, a trace without
 * events is no sign of a build without hooks. */
static int session_selecting(const char *opts, char *out, size_t n)
{
	static const char *const with_value[] = { "-F", "--filter", "-N", "--notrace", "-C", "--caller-filter", "-t",
						  "--time-filter", "-P", "--patch", "--module", "--no-thread",
						  "-T", "--trigger", "--trace", NULL };
	char w[256], val[256];
	const char *p = opts, *start, *vstart;
	size_t len = 0;
	out[0] = 0;
	while (p && (p = session_word(p, w, sizeof(w), &start))) {
		const char *end = p, *name = NULL, *value = NULL;
		for (int i = 0; with_value[i] && !name; i++) {
			size_t l = strlen(with_value[i]);
			if (strncmp(w, with_value[i], l))
				continue;
			if (!w[l]) {            /* the value is the next word */
				const char *q = session_word(p, val, sizeof(val), &vstart);
				if (!q)
					break;
				name = with_value[i], value = val, end = p = q;
			} else if (w[l] == '=' && w[1] == '-') {
				name = with_value[i], value = w + l + 1;
			} else if (w[1] != '-') {
				name = with_value[i], value = w + l;
			}
		}
		if (!name)
			continue;
		if (!strcmp(name, "--trace") && strcmp(value, "off"))
			continue;
		if ((!strcmp(name, "-T") || !strcmp(name, "--trigger")) && !strstr(value, "trace_on") &&
		    !strstr(value, "time="))
			continue;
		if (len + (size_t)(end - start) + 3 < n)
			len += (size_t)snprintf(out + len, n - len, "%s%.*s", len ? ", " : "", (int)(end - start),
						start);
	}
	return len > 0;
}

void view_no_events_hint(struct view *v)
{
	char sel[512];
	uint64_t lost = 0;
	for (size_t i = 0; i < v->trace->n_procs; i++)
		lost += fnt_header_lost(&v->trace->procs[i].hdr);
	if (lost) {             /* instrumented, but nothing could be written (ulimit -f, disk full) */
		fprintf(stderr, "fntrace: no function events were recorded in '%s': all %" PRIu64 " were lost "
			"('fntrace info' says why)\n", v->opts->dir, lost);
		return;
	}
	if (v->trace->unwritten_lost) {   /* record killed with the program before it copied any event */
		fprintf(stderr, "fntrace: no function events could be read from '%s': the chunks the program "
			"wrote them in were never written to the file (as said above)\n", v->opts->dir);
		return;
	}
	int damaged = v->trace->n_warnings > 0;     /* a file cut, damaged or skipped at open */
	for (size_t i = 0; i < v->trace->n_procs; i++)
		damaged |= v->trace->procs[i].damaged_bytes || v->trace->procs[i].missing_chunks;
	if (damaged) {          /* not the build's fault: say what the warnings said */
		fprintf(stderr, "fntrace: no function events could be read from '%s': its files are cut or "
			"damaged (as said above)\n", v->opts->dir);
		return;
	}
	if (v->trace->session_options && session_selecting(v->trace->session_options, sel, sizeof(sel))) {
		fprintf(stderr, "fntrace: no function events were recorded in '%s': it was recorded with %s, "
			"which chose the calls to record, and none of the calls that ran was chosen (record "
			"without them to see the names)\n", v->opts->dir, sel);
		return;
	}
	struct patch_totals pt;
	patch_totals(v->trace, &pt);
	if (pt.short_pads) {    /* built with pads, but none that takes the call */
		fprintf(stderr, "fntrace: no function events were recorded in '%s': %" PRIu64 " function%s had "
			"%s\n", v->opts->dir, pt.short_pads, pt.short_pads == 1 ? "" : "s",
			patch_reason(FNT_PATCH_SHORT_PAD));
		return;
	}
	fprintf(stderr, "fntrace: no function events were recorded in '%s'\n"
		"hint: build the program with -finstrument-functions (gcc or clang), "
		"then run 'fntrace record' again (or, without rebuilding, 'fntrace record -P FUNC')\n",
		v->opts->dir);
}

/* ---- filters ---- */

static int glob_any(const struct strlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!fnmatch(l->v[i], name, 0) || !strcmp(l->v[i], name))
			return 1;
	return 0;
}

/* The names a glob is matched against: the one shown (per --demangle), the
 * signature without a template function's return type, and for a C++
 * function every form record's filters match (runtime/filter.c): short,
 * simple (no template arguments), short before the library's types are
 * renamed, and mangled.  So 'replay -F geo::twice' keeps geo::twice<int>
 * and geo::twice<double>, as 'record -F geo::twice' does. */

static void forms_add(struct name_forms *nf, const char *s, int owned)
{
	if (!s || !*s) {
		if (owned)
			free((char *)s);
		return;
	}
	for (size_t i = 0; i <= nf->n; i++)
		if (i == MAX_FORMS || (i < nf->n && !strcmp(nf->v[i], s))) {
			if (owned)
				free((char *)s);
			return;
		}
	nf->v[nf->n++] = s;
	if (owned)
		nf->owned[nf->n_owned++] = (char *)s;
}

static void forms_get(struct view *v, uint32_t func, struct name_forms *nf)
{
	static const enum cxxname_style styles[] = { CXXNAME_SHORT, CXXNAME_SIMPLE, CXXNAME_NAME, CXXNAME_SIG };
	const struct trace_func *f = &v->trace->funcs[func];
	struct sym_func sf;
	nf->n = nf->n_owned = 0;
	forms_add(nf, view_name(v, func), 0);
	forms_add(nf, view_sig_name(v, func), 0);
	if (f->file == TRACE_NO_FILE || trace_scope_name(v->trace, f->file, f->vaddr))
		return;
	symbols_func(v->syms, file_sym(v, f->file), f->vaddr, 0, &sf);
	if (!sf.mangled) {
		/* a C function's clone (f.constprop.0): f's name too */
		if (sf.name)
			forms_add(nf, cxxname_unclone(sf.name), 1);
		return;
	}
	for (size_t i = 0; i < sizeof(styles) / sizeof(*styles) - 1; i++)
		forms_add(nf, cxxname_demangle(sf.mangled, styles[i]), 1);
	forms_add(nf, sf.mangled, 0);
	/* a clone (_ZN1wL7computeEii.constprop.0): its function's forms too */
	char *base = cxxname_unclone(sf.mangled);
	if (base) {
		for (size_t i = 0; i < sizeof(styles) / sizeof(*styles); i++)
			forms_add(nf, cxxname_demangle(base, styles[i]), 1);
		forms_add(nf, base, 1);
	}
}

static void forms_free(struct name_forms *nf)
{
	for (size_t i = 0; i < nf->n_owned; i++)
		free(nf->owned[i]);
	nf->n = nf->n_owned = 0;
}

static int glob_forms(const struct strlist *l, const struct name_forms *nf)
{
	for (size_t i = 0; i < nf->n; i++)
		if (glob_any(l, nf->v[i]))
			return 1;
	return 0;
}

int view_filter_match(struct view *v, uint32_t func)
{
	grow(v, func);
	if (!v->filter_match[func]) {
		int m = 8;
		struct view_opts *o = v->opts;
		if (o->filter.n || o->notrace.n || o->hide.n || o->callers.n || o->n_triggers) {
			struct name_forms nf;
			forms_get(v, func, &nf);
			if (glob_forms(&o->filter, &nf))
				m |= 1;
			if (glob_forms(&o->notrace, &nf))
				m |= 2;
			if (glob_forms(&o->hide, &nf))
				m |= 4;
			if (glob_forms(&o->callers, &nf))
				m |= 16;
			for (size_t i = 0; i < o->n_triggers; i++) {
				const struct trigger *g = &o->triggers[i];
				struct trigger *to = &v->trig_of[func];
				struct strlist one = { (const char **)&g->glob, 1 };
				if (!glob_forms(&one, &nf))
					continue;
				/* several globs: every action, the smallest depth, the longest time */
				if ((g->flags & TRIG_DEPTH) && (!(to->flags & TRIG_DEPTH) || g->depth < to->depth))
					to->depth = g->depth;
				if (g->time_ns > to->time_ns)
					to->time_ns = g->time_ns;
				to->flags |= g->flags;
				m |= 32;
			}
			forms_free(&nf);
		}
		v->filter_match[func] = (uint8_t)m;
	}
	return v->filter_match[func] & 55;
}

const struct trigger *view_trigger(struct view *v, uint32_t func)
{
	view_filter_match(v, func);
	return &v->trig_of[func];
}
