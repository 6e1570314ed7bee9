/*
 * cmd-perf-inject.c - `fntrace perf-inject`: a perf.data with the real
 * return addresses in place of fntrace's return trampoline, so that
 * `perf report`, `perf annotate` and whatever else reads perf.data show the
 * program's real frames.
 *
 * Under -pg -mfentry, -P and library calls each traced call's return
 * address on the machine stack is fnt_return_trampoline's, the real one
 * being in a per-thread shadow stack that perf cannot read.  perf.data holds
 * it in two places:
 * - a callchain walked by frame pointers (PERF_SAMPLE_CALLCHAIN, its user
 *   part): each swapped return address becomes the real one, in place;
 * - the copy of the user stack that `--call-graph dwarf` takes
 *   (PERF_SAMPLE_STACK_USER, unwound later by perf with the registers of
 *   PERF_SAMPLE_REGS_USER): each word that holds the trampoline's address
 *   becomes the real return address, so that perf's unwinder, reading the
 *   CFI at real return addresses, walks on through the real frames.
 * The real return address is the recorded call site (record --callsite),
 * or else found in the caller's code (find_call), read only from a file of
 * the traced build (its build-id checked): an unwinder needs it
 * exactly, a callchain entry only needs to name the caller.
 * Which calls were open comes from the trace at the sample's time, matched
 * to the sample as perf-script does (perf-match.c, perf-chain.c); for a
 * stack copy the sample's own pc must lie in the innermost open call, the
 * words holding the trampoline's address are the open calls' slots,
 * innermost (lowest address) first, and there can be no more of them than
 * open calls.
 *
 * Every record keeps its size: the output is the input with some u64s
 * changed, written whole under a temporary name and renamed (outfile.c).
 * A file this does not read in full (pipe mode, compressed records, a
 * corrupt or torn record) is refused before anything is written.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include "format/safeio.h"
#include "tool/perf-data.h"
#include "tool/perf-match.h"

static const char perf_inject_usage[] =
	"usage: fntrace perf-inject [options]\n\n"
	"Write a copy of a perf.data file with the real return addresses in place of\n"
	"the fnt_traced_return frames of programs traced with -pg -mfentry, -P or\n"
	"library calls, taken from the trace of the same run, so that perf report,\n"
	"perf annotate and perf script show the real callers. perf must record with\n"
	"-k mono:\n\n"
	"  perf record -k mono -g -- fntrace record -- ./prog\n"
	"  fntrace perf-inject && perf report -i perf.data.real\n\n"
	"  -i, --input FILE       the perf.data to read (default: perf.data)\n"
	"  -o, --output FILE      where to write (default: the input's name + .real;\n"
	"                         - for standard output, not a terminal); never the\n"
	"                         input itself\n"
	"  -d, --data DIR         trace directory (default: fntrace.data)\n"
	"      --window TIME      how far apart perf's and the trace's times of one\n"
	"                         instant may be (default 50us)\n"
	"      --debug-dir DIR    also look for debug info under DIR (repeatable)\n"
	"      --prefix-map OLD=NEW  read sources/modules recorded under OLD from NEW\n"
	"  -h, --help             this help\n\n"
	"Frame-pointer callchains (-g) and DWARF stack copies (--call-graph dwarf)\n"
	"are rewritten, with the call sites of 'fntrace record --callsite', or else\n"
	"the direct calls found in the callers' code. Samples whose chain fits no\n"
	"calls open at their time are kept as they were; stderr says how many.\n"
	"A perf.data with no sample of the trace's threads (another run) is an error.\n";

/* where one frame of a sample is in the file: a callchain entry or a stack
 * word, both a u64 to rewrite */
struct inj_sample {
	size_t *pos;                /* pos[i]: offset of frame i's u64 in the file (frames[i]) */
	int dwarf;                  /* frames from a stack copy: needs exact return addresses */
};

struct inj_proc {                   /* what is known of one traced process */
	const struct trace_process *p;
	uint64_t tramp;             /* the runtime address of fnt_return_trampoline, once seen */
	uint64_t not_tramp[256];    /* addresses seen not to be it (a small cache, by hash) */
};

struct perf_inject {
	struct view *v;
	uint8_t *buf;
	size_t size;
	struct pc_sample *samples;
	struct inj_sample *inj;
	size_t n_samples, cap_samples;
	struct inj_proc *procs;     /* one per trace process */
	uint32_t *tid_proc;         /* (tid, process index) pairs, sorted */
	size_t n_tid;
	struct code_file *code;     /* module files read by find_call */
	size_t n_code;
	struct {                    /* find_call's answers, by (caller, callee) */
		uint64_t key, ret;
		int no_code;
	} calls[1024];
	uint8_t *traced_file;       /* by trace file: the trace has functions in it */
};

struct ret_slot {                   /* what render_rets makes: one per swapped frame */
	uint64_t addr;              /* 0: not known */
	int exact;
	/* without a recorded call site: the call and its caller, to find the
	 * call instruction in the caller's code (find_call) */
	uint32_t file;              /* both functions' module, trace file + 1 (0: not the same one) */
	uint64_t callee;            /* file vaddr of the called function, or of a library call's GOT slot */
	int slot;                   /* callee is a library call's GOT slot */
	uint64_t caller, caller_size, caller_addr;   /* the caller's file vaddr, size, runtime entry */
};

struct code_file {                  /* a module file whose code find_call reads */
	uint32_t file;              /* the trace's file + 1 */
	const char *path;           /* the file read (NULL: none has the traced build) */
	char *why;                  /* why none, or NULL */
	int fd;                     /* -1: not readable */
	GElf_Phdr *load;            /* its PT_LOAD headers */
	size_t n_load;
	size_t missed;              /* return addresses not looked up for want of it */
};

/* the return addresses of the calls the swapped frames stand for
 * (pc_render_fn): the k-th swapped frame is call pc_first_slot + k's */
static int render_rets(const struct pc_sample *s, const struct pc_call *calls, size_t n, size_t skipped_to,
		       char **out, size_t *out_len)
{
	size_t a = pc_first_slot(s, n);
	struct ret_slot *r = calloc(s->n_tramp ? s->n_tramp : 1, sizeof(*r));
	(void)skipped_to;       /* the frames a walk skipped have no slot to put them in */
	if (!r)
		return -1;
	for (size_t k = 0; k < s->n_tramp && a + k < n; k++) {
		const struct pc_call *c = &calls[n - 1 - (a + k)];
		r[k].addr = c->ret;
		r[k].exact = c->ret_exact;
		if (!c->ret_exact && a + k + 1 < n) {
			const struct pc_call *up = &calls[n - 2 - (a + k)];
			if (up->size && up->file && up->file == c->file) {
				r[k].file = c->file;
				r[k].callee = c->start;
				r[k].slot = !c->size;   /* a library call: the slot is in the caller's module */
				r[k].caller = up->start;
				r[k].caller_size = up->size;
				r[k].caller_addr = up->addr;
			}
		}
	}
	*out = (char *)r;
	*out_len = s->n_tramp * sizeof(*r);
	return 0;
}

/* the module file of trace file + 1 `file` whose code find_call reads:
 * only one with the traced build-id (the code of a rebuilt file would give
 * return addresses that are wrong without a sign of it), found as the
 * names are (--prefix-map, --debug-dir, an archive's DIR/debug) */
static struct code_file *code_file(struct perf_inject *pi, uint32_t file)
{
	for (size_t i = 0; i < pi->n_code; i++)
		if (pi->code[i].file == file)
			return &pi->code[i];
	pi->code = xrealloc(pi->code, (pi->n_code + 1) * sizeof(*pi->code));
	struct code_file *cf = &pi->code[pi->n_code++];
	const struct trace_file_ref *tf = &pi->v->trace->files[file - 1];
	const char *why = NULL;
	memset(cf, 0, sizeof(*cf));
	cf->file = file;
	cf->fd = -1;
	cf->path = view_file_code(pi->v, file - 1, &why);
	if (!cf->path) {
		if (!why)       /* else view_report_problems says why */
			cf->why = xstrdup("no file with its build-id was found");
		return cf;
	}
	cf->fd = fnt_open_regular(cf->path, 0, NULL, &why);   /* a path the trace names: never a device */
	Elf *e = cf->fd >= 0 ? elf_begin(cf->fd, ELF_C_READ, NULL) : NULL;
	const void *bid = NULL;
	ssize_t n_bid = e ? dwelf_elf_gnu_build_id(e, &bid) : -1;
	size_t n = 0;
	/* checked again on the file opened here: it may have been replaced
	 * since the symbolizer read it */
	if (!e || (tf->build_id_len && (n_bid != tf->build_id_len || memcmp(bid, tf->build_id, n_bid)))) {
		char w[600];
		snprintf(w, sizeof(w), "'%.500s' %s", cf->path, !e ? "cannot be read" : "changed while it was read");
		cf->why = xstrdup(w);
		cf->path = NULL;
	} else if (!elf_getphdrnum(e, &n) && n < 4096) {
		cf->load = xcalloc(n + 1, sizeof(*cf->load));
		for (size_t i = 0; i < n; i++)
			if (gelf_getphdr(e, (int)i, &cf->load[cf->n_load]) && cf->load[cf->n_load].p_type == PT_LOAD)
				cf->n_load++;
	}
	if (e)
		elf_end(e);
	return cf;
}

/* the code of the caller (file vaddrs [caller, caller + size)) from its
 * module file (trace file + 1), into buf; 0, or -1 */
static int read_code(struct perf_inject *pi, uint32_t file, uint64_t vaddr, size_t size, uint8_t *buf)
{
	struct code_file *cf = code_file(pi, file);
	for (size_t i = 0; i < cf->n_load; i++) {
		const GElf_Phdr *ph = &cf->load[i];
		if (vaddr < ph->p_vaddr || vaddr - ph->p_vaddr > ph->p_filesz || size > ph->p_filesz - (vaddr - ph->p_vaddr))
			continue;
		return pread(cf->fd, buf, size, (off_t)(ph->p_offset + (vaddr - ph->p_vaddr))) == (ssize_t)size ? 0 : -1;
	}
	return -1;
}

/* whether the code at file vaddr at (a call's target) is a PLT entry that
 * jumps through the GOT slot: [endbr64] [bnd] jmp *slot(%rip) (.plt.sec,
 * .plt.got and, bound now, .plt's entries alike) */
static int plt_entry_of(struct perf_inject *pi, uint32_t file, uint64_t at, uint64_t slot)
{
	uint8_t c[11];
	size_t i = 0;
	int32_t rel;
	if (read_code(pi, file, at, sizeof(c), c))
		return 0;
	if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		i = 4;
	if (c[i] == 0xf2)
		i++;
	if (c[i] != 0xff || c[i + 1] != 0x25)
		return 0;
	memcpy(&rel, c + i + 2, 4);
	return at + i + 6 + (uint64_t)(int64_t)rel == slot;
}

/* Without a recorded call site, the real return address of a call is
 * found in its caller's code: the one call there whose target is the
 * called function (e8 rel32), or for a library call the one that goes
 * through its GOT slot (call *slot(%rip), ff 15 rel32, under -fno-plt; e8
 * rel32 to a PLT entry that jumps through it); the return address is the
 * instruction after it.  None, or several (which one was it?): 0.  No
 * file with the traced build of the module: 0 and *no_code. */
static uint64_t find_call(struct perf_inject *pi, const struct ret_slot *r, int *no_code)
{
	uint64_t key = pc_key(pc_key(pc_key(r->caller_addr, r->callee), r->caller), r->file), ret = 0;
	size_t h = (size_t)(key % (sizeof(pi->calls) / sizeof(pi->calls[0])));
	if (pi->calls[h].key == key) {
		*no_code = pi->calls[h].no_code;
		return pi->calls[h].ret;
	}
	size_t size = (size_t)r->caller_size;
	uint8_t *code = size >= 5 && size <= (1u << 20) ? xmalloc(size) : NULL;
	*no_code = !code_file(pi, r->file)->path;
	if (code && !*no_code && !read_code(pi, r->file, r->caller, size, code)) {
		int found = 0;
		for (size_t i = 0; i + 5 <= size; i++) {
			int32_t rel;
			memcpy(&rel, code + i + 1, 4);
			uint64_t to = r->caller + i + 5 + (uint64_t)(int64_t)rel;
			if (code[i] == 0xe8 && (r->slot ? plt_entry_of(pi, r->file, to, r->callee) : to == r->callee)) {
				ret = r->caller_addr + i + 5;
				found++;
			} else if (r->slot && code[i] == 0xff && i + 6 <= size && code[i + 1] == 0x15) {
				memcpy(&rel, code + i + 2, 4);
				if (r->caller + i + 6 + (uint64_t)(int64_t)rel == r->callee) {
					ret = r->caller_addr + i + 6;
					found++;
				}
			}
		}
		if (found != 1)
			ret = 0;
	}
	free(code);
	pi->calls[h].key = key;
	pi->calls[h].ret = ret;
	pi->calls[h].no_code = *no_code;
	return ret;
}

static uint8_t *read_file(const char *path, size_t *len, mode_t *mode)
{
	struct stat st;
	const char *why;
	int fd = fnt_open_regular(path, 0, &st, &why);
	if (fd < 0)
		die("perf-inject: cannot open '%s': %s%s", path, why,
		    errno == ENOENT ? " (run 'perf record -k mono -g -- fntrace record ...' first)" : "");
	size_t n = (size_t)st.st_size, got = 0;
	uint8_t *buf = xmalloc(n ? n : 1);
	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("perf-inject: cannot read '%s': %s", path, r ? strerror(errno) : "it shrank while read");
		got += (size_t)r;
	}
	close(fd);
	*len = n;
	*mode = st.st_mode & 0777;
	return buf;
}

static int cmp_tid(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : 0;
}

static void index_threads(struct perf_inject *pi)
{
	struct trace *t = pi->v->trace;
	pi->procs = xcalloc(t->n_procs + 1, sizeof(*pi->procs));
	for (size_t i = 0; i < t->n_procs; i++) {
		pi->procs[i].p = &t->procs[i];
		pi->n_tid += t->procs[i].n_threads;
	}
	pi->tid_proc = xmalloc((pi->n_tid + 1) * 2 * sizeof(*pi->tid_proc));
	size_t k = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t j = 0; j < t->procs[i].n_threads; j++) {
			pi->tid_proc[2 * k] = t->procs[i].threads[j].tid;
			pi->tid_proc[2 * k + 1] = (uint32_t)i;
			k++;
		}
	qsort(pi->tid_proc, pi->n_tid, 2 * sizeof(*pi->tid_proc), cmp_tid);
}

/* the traced process of a sample's thread (the last image of that tid), or NULL */
static struct inj_proc *proc_of(struct perf_inject *pi, uint32_t tid)
{
	size_t lo = 0, hi = pi->n_tid;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pi->tid_proc[2 * mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	struct inj_proc *found = NULL;
	for (; lo < pi->n_tid && pi->tid_proc[2 * lo] == tid; lo++)
		found = &pi->procs[pi->tid_proc[2 * lo + 1]];
	return found;
}

/* frame f for the runtime address addr of process ip at trace time ns: its
 * module's path, file vaddr and symbol, as perf-chain.c compares them */
static void set_frame(struct perf_inject *pi, struct inj_proc *ip, uint64_t ns, uint64_t addr, struct pc_frame *f)
{
	const struct trace_module *m = trace_module_at(ip->p, addr, ns);
	struct sym_func sf;

	memset(f, 0, sizeof(*f));
	f->parsed = 1;
	f->addr = addr;
	f->sym = "[unknown]";
	f->sym_len = 9;
	f->dso = "[unknown]";
	f->dso_len = 9;
	if (!m)
		return;
	f->addr = addr - m->bias;
	f->dso = pi->v->trace->files[m->file].path;
	f->dso_len = strlen(f->dso);
	if (view_addr_sym(pi->v, m->file, f->addr, &sf) == 0) {
		f->sym = sf.short_name ? sf.short_name : sf.name;
		f->sym_len = strlen(f->sym);
		f->off = f->addr - sf.start;
		f->has_off = 1;
		f->tramp = pc_tramp_sym(f->sym, f->sym_len, f->off, f->has_off);
		/* the exact return address (fnt_traced_return is one byte before it) */
		if (f->tramp && f->off == (uint64_t)!strcmp(f->sym, "fnt_traced_return"))
			ip->tramp = addr;
	}
}

/* whether the stack word w is the trampoline's address in process ip */
static int is_tramp_word(struct perf_inject *pi, struct inj_proc *ip, uint64_t ns, uint64_t w)
{
	struct pc_frame f;
	if (ip->tramp)
		return w == ip->tramp;
	uint64_t *slot = &ip->not_tramp[(w * 0x9e3779b97f4a7c15ull) >> 56];
	if (!w || *slot == w || !trace_module_at(ip->p, w, ns))
		return 0;
	set_frame(pi, ip, ns, w, &f);
	if (ip->tramp)
		return w == ip->tramp;
	*slot = w;
	return 0;
}

static struct pc_sample *new_sample(struct perf_inject *pi, const struct perf_sample *ps, size_t n_frames)
{
	if (pi->n_samples == pi->cap_samples) {
		pi->cap_samples = pi->cap_samples ? pi->cap_samples * 2 : 1024;
		pi->samples = xrealloc(pi->samples, pi->cap_samples * sizeof(*pi->samples));
		pi->inj = xrealloc(pi->inj, pi->cap_samples * sizeof(*pi->inj));
	}
	struct pc_sample *s = &pi->samples[pi->n_samples];
	struct inj_sample *is = &pi->inj[pi->n_samples];
	memset(s, 0, sizeof(*s));
	memset(is, 0, sizeof(*is));
	s->tid = ps->tid;
	s->ns = ps->time;
	s->frames = xcalloc(n_frames + 1, sizeof(*s->frames));
	is->pos = xcalloc(n_frames + 1, sizeof(*is->pos));
	return s;
}

/* the sample's user callchain (frame pointers): a pc_sample if it holds a
 * swapped return address */
static void add_chain(struct perf_inject *pi, struct inj_proc *ip, const struct perf_sample *ps, uint64_t ns)
{
	size_t user = 0, end = (size_t)ps->chain_nr;
	int marked = 0;
	for (size_t i = 0; i < end; i++) {
		uint64_t a = pd_u64(pi->buf + ps->chain + 8 * i);
		if (a == PD_CONTEXT_USER) {
			user = i + 1;
			marked = 1;
		} else if (a >= PD_CONTEXT_MAX && marked) {
			end = i;
		}
	}
	if (!marked) {          /* no context markers: all of it, as it is */
		for (size_t i = 0; i < end; i++)
			if (pd_u64(pi->buf + ps->chain + 8 * i) >= PD_CONTEXT_MAX)
				return;
	}
	if (user >= end)
		return;
	struct pc_sample *s = new_sample(pi, ps, end - user);
	struct inj_sample *is = &pi->inj[pi->n_samples];
	for (size_t i = user; i < end; i++) {
		is->pos[s->n_frames] = ps->chain + 8 * i;
		set_frame(pi, ip, ns, pd_u64(pi->buf + ps->chain + 8 * i), &s->frames[s->n_frames++]);
	}
	pc_scan(s);
	if (!s->n_tramp) {
		free(s->frames);
		free(is->pos);
		return;
	}
	pi->n_samples++;
}

/* the sample's copy of the user stack (--call-graph dwarf): its pc, then
 * each word that holds the trampoline's address, innermost first */
static void add_stack(struct perf_inject *pi, struct inj_proc *ip, const struct perf_sample *ps, uint64_t ns)
{
	size_t skip = (size_t)((8 - (ps->user_sp & 7)) & 7), n = 0;
	const uint8_t *st = pi->buf + ps->stack;
	size_t len = (size_t)ps->stack_len;

	for (size_t o = skip; o + 8 <= len; o += 8)
		n += is_tramp_word(pi, ip, ns, pd_u64(st + o));
	if (!n)
		return;
	struct pc_sample *s = new_sample(pi, ps, n + 1);
	struct inj_sample *is = &pi->inj[pi->n_samples];
	is->dwarf = 1;
	s->head_is_pc = 1;              /* (not unwound: perf does that later) */
	set_frame(pi, ip, ns, ps->user_ip, &s->frames[0]);
	s->frames[0].tramp = 0;
	s->n_frames = 1;
	for (size_t o = skip; o + 8 <= len; o += 8)
		if (ip->tramp && pd_u64(st + o) == ip->tramp) {
			struct pc_frame *f = &s->frames[s->n_frames];
			f->parsed = f->tramp = 1;
			f->sym = "fnt_return_trampoline";
			f->sym_len = strlen(f->sym);
			is->pos[s->n_frames++] = ps->stack + o;
		}
	pc_scan(s);
	/* where the sample was taken: in code the program runs untraced (a
	 * library, the dynamic linker: not fntrace's, the trampoline's module) */
	const struct trace_module *m = trace_module_at(ip->p, ps->user_ip, ns), *rt;
	rt = ip->tramp ? trace_module_at(ip->p, ip->tramp, ns) : NULL;
	s->frames[0].untraced = m && rt && m->file != rt->file && !pi->traced_file[m->file];
	pi->n_samples++;
}

int cmd_perf_inject(int argc, char **argv)
{
	static const struct option longopts[] = {
		VIEW_LONGOPTS,
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "window", required_argument, NULL, 0x200 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct view_opts o = { 0 };
	struct view v;
	struct perf_inject pi = { .v = &v };
	const char *in = "perf.data", *out = NULL;
	char *defout = NULL;
	uint64_t window = 50000;
	int opt;

	opterr = 0;
	while ((opt = fnt_getopt_long(argc, argv, ":d:i:o:h", longopts, NULL)) != -1) {
		if (view_opt(&o, opt, optarg))
			continue;
		switch (opt) {
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case 0x200: window = parse_time_unit("--window", optarg, "a duration"); break;
		case 'h': fputs(perf_inject_usage, stdout); return 0;
		case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
		default: die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o.no_pager || o.color)
		die_usage("options --no-pager and --color do not apply to 'perf-inject'");
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!*in || (out && !*out))
		die_usage("options -i and -o need a file name");
	if (!out) {
		defout = xmalloc(strlen(in) + 6);
		sprintf(defout, "%s.real", in);
		out = defout;
	}
	struct stat si, so;
	if (!strcmp(in, out) || (!stat(in, &si) && !stat(out, &so) && si.st_dev == so.st_dev && si.st_ino == so.st_ino))
		die_usage("the output '%s' is the input: name another with -o", out);
	if (!strcmp(out, "-") && isatty(1))
		die_usage("standard output is a terminal: name a file with -o");

	/* the whole input is read and checked (every record) before the trace is
	 * opened or anything written */
	struct perf_data pd;
	struct perf_sample ps;
	size_t n_read = 0;
	int r;
	mode_t in_mode;
	pi.buf = read_file(in, &pi.size, &in_mode);
	if (perf_data_open(&pd, pi.buf, pi.size))
		die("perf-inject: %s: %s", in, pd.err);
	int chains = 0;
	for (size_t i = 0; i < pd.n_attrs; i++)
		chains |= !!(pd.attrs[i].sample_type & (PD_SAMPLE_CALLCHAIN | PD_SAMPLE_STACK_USER));
	if (!chains)
		die("perf-inject: %s: its samples have no callchain (record with 'perf record -g' or "
		    "'--call-graph dwarf')", in);
	if (!(pd.attrs[0].sample_type & PD_SAMPLE_TIME) || !(pd.attrs[0].sample_type & PD_SAMPLE_TID))
		die("perf-inject: %s: its samples have no time or thread id", in);

	while ((r = perf_data_next(&pd, &ps)) == 1)
		;
	if (r < 0)
		die("perf-inject: %s: %s", in, pd.err);
	perf_data_rewind(&pd);
	/* `perf record -- fntrace record -- prog`: prog's fork from the tool
	 * keeps none of the tool's mappings in perf's eyes (perf-data.h) */
	perf_data_mark_fork_exec(&pd, pi.buf);

	view_open(&v, &o);
	view_check_output(&v, out, "the output");
	index_threads(&pi);
	pi.traced_file = xcalloc(v.trace->n_files + 1, 1);
	for (size_t i = 0; i < v.trace->n_funcs; i++)
		if (v.trace->funcs[i].file != TRACE_NO_FILE && v.trace->funcs[i].file < v.trace->n_files)
			pi.traced_file[v.trace->funcs[i].file] = 1;
	int mono = 1;
	for (size_t i = 0; i < pd.n_attrs; i++)
		mono &= pd.attrs[i].use_clockid && pd.attrs[i].clockid == 1;   /* CLOCK_MONOTONIC */
	size_t n_ours = 0;
	while ((r = perf_data_next(&pd, &ps)) == 1) {
		n_read++;
		struct inj_proc *ip = proc_of(&pi, ps.tid);
		if (!ip)
			continue;       /* a thread the trace does not have: no trampoline in it */
		uint64_t ns = ps.time > v.trace->t0_mono ? ps.time - v.trace->t0_mono : 0;
		/* one of the trace's threads, unless perf's clock says it ran before
		 * its process was made (the same tid in an earlier run) */
		n_ours += !mono || ps.time + 1000000000ull >= v.trace->t0_mono + ip->p->start_ns;
		if (ps.chain)
			add_chain(&pi, ip, &ps, ns);
		if (ps.stack && ps.has_regs)
			add_stack(&pi, ip, &ps, ns);
	}

	/* perf.data and the trace of different runs: the output would only be a
	 * copy of the input, which says nothing of it */
	if (!n_ours)
		die("perf-inject: none of the %zu samples in '%s' is of a thread of the trace '%s'%s: nothing to "
		    "rewrite, nothing written (record with 'perf record -k mono -g -- fntrace record ...', perf "
		    "around the same run as the trace)", n_read, in, o.dir ? o.dir : "fntrace.data",
		    mono ? " while it ran" : "");

	struct pc_match *match = xcalloc(pi.n_samples + 1, sizeof(*match));
	perf_match_walk(&v, pi.samples, pi.n_samples, window, render_rets, match);

	size_t rewritten = 0, unmatched = 0, inexact = 0, not_read = 0, inexact_no_code = 0;
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < pi.n_samples; i++) {
		const struct pc_sample *s = &pi.samples[i];
		const struct inj_sample *is = &pi.inj[i];
		struct ret_slot *rs = (struct ret_slot *)match[i].text;
		size_t k = 0, ok = 1, lacked = 0;
		if (!rs || match[i].conflict) {
			unmatched++;
			continue;
		}
		for (size_t j = 0; j < s->n_tramp; j++) {
			int no_code = 0;
			uint64_t at = rs[j].exact || !rs[j].file ? 0 : find_call(&pi, &rs[j], &no_code);
			if (no_code) {
				code_file(&pi, rs[j].file)->missed++;
				not_read++;
				lacked = 1;
			}
			if (at) {
				rs[j].addr = at;
				rs[j].exact = 1;
			}
			/* an unwinder needs the real return address (the CFI at that very
			 * instruction), not the caller's entry; the outermost call's
			 * unknown caller just ends the walk */
			ok &= !is->dwarf || rs[j].exact || !rs[j].addr;
		}
		if (!ok) {
			inexact++;
			inexact_no_code += lacked;
			continue;
		}
		k = 0;
		for (size_t f = 0; f < s->n_frames; f++) {
			if (!s->frames[f].tramp)
				continue;
			const struct ret_slot *x = &rs[k++];
			/* the unknown caller of the outermost call: in a callchain a context
			 * marker, which every reader passes over; on the stack 0, where an
			 * unwinder stops */
			pd_put_u64(pi.buf + is->pos[f], x->addr ? x->addr : is->dwarf ? 0 : PD_CONTEXT_USER);
			rewritten++;
		}
	}

	struct out_file of;
	/* as private as the input, or as a trace (it holds perf's copies of
	 * the user stack, and the calls of the trace), whichever is stricter */
	out_file_open(&of, out, OUT_FILE_PRIVATE & in_mode);
	int failed = fwrite(pi.buf, 1, pi.size, of.f) != pi.size;
	if (failed)
		error_msg("cannot write '%s': %s", out, strerror(errno));
	if (out_file_close(&of, failed))
		return 1;

	char obuf[512];
	if (strcmp(out, "-"))
		fprintf(stderr, "fntrace: perf-inject: wrote '%s'", text_safe(out, obuf, sizeof(obuf)));
	else
		fprintf(stderr, "fntrace: perf-inject: wrote the output to standard output");
	fprintf(stderr, ": %zu samples read, %zu frames rewritten, %zu of %zu "
		"samples with a swapped frame not matched%s", n_read, rewritten, unmatched + inexact,
		pi.n_samples, unmatched * 2 > pi.n_samples && !mono ? " (record with 'perf record -k mono' around the "
		"same run as the trace)" : unmatched * 2 > pi.n_samples ? " (was perf run around the same run as the "
		"trace?)" : "");
	if (not_read)
		fprintf(stderr, "; %zu return addresses not looked up: the traced build of a module was not found",
			not_read);
	fputc('\n', stderr);
	for (size_t i = 0; i < pi.n_code; i++)
		if (pi.code[i].missed) {
			char pbuf[512], wbuf[1024];
			fprintf(stderr, "fntrace: perf-inject: %zu return addresses were not looked up in the code of '%s': "
				"%s%s; frame-pointer entries name the caller's entry instead, DWARF samples stay as they "
				"were (give the traced build with --prefix-map or --debug-dir, or read the trace's archive)\n",
				pi.code[i].missed, text_safe(v.trace->files[pi.code[i].file - 1].path, pbuf, sizeof(pbuf)),
				pi.code[i].why ? text_safe(pi.code[i].why, wbuf, sizeof(wbuf)) :
				"no file of it has the traced build-id (see the warning ",
				pi.code[i].why ? "" : "below)");
		}
	if (inexact > inexact_no_code)
		fprintf(stderr, "fntrace: perf-inject: %zu DWARF samples were left as they were: the real return "
			"address of a call was not found in its caller's code (record with 'fntrace record --callsite')\n",
			inexact - inexact_no_code);
	view_report_problems(&v);
	for (size_t i = 0; i < pi.n_samples; i++) {
		free(pi.samples[i].frames);
		free(pi.inj[i].pos);
		free(match[i].text);
	}
	free(match);
	free(pi.samples);
	free(pi.inj);
	free(pi.procs);
	free(pi.tid_proc);
	free(pi.traced_file);
	for (size_t i = 0; i < pi.n_code; i++) {
		if (pi.code[i].fd >= 0)
			close(pi.code[i].fd);
		free(pi.code[i].load);
		free(pi.code[i].why);
	}
	free(pi.code);
	perf_data_release(&pd);
	free(pi.buf);
	free(defout);
	view_close(&v);
	return 0;
}
