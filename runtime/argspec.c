/*
 * argspec.c - which functions have an -A/-R spec, by address.
 *
 * `fntrace record` passes the specs in FNTRACE_ARGS ("GLOB@ITEMS;..."; the
 * tool has checked them).  Globs are matched against the symbol table of
 * each module when it is first seen (at start and after dlopen), never on
 * the hot path; each match goes into a fixed open-addressing table that the
 * trampolines read without a lock (an entry's spec is stored before its
 * address, with release order), and into the trace as an ARGSPEC meta
 * record carrying the spec text, so the decoder formats with exactly what
 * was captured.  A function matched by several specs gets their items
 * together (up to FNT_ARGS_MAX).  Each entry also holds the spec
 * pre-decoded (struct fnt_argplan: where each value is, the worst case of
 * each record), so the trampolines' fast path never reads the spec.
 */
#include <elf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fntrace.h"
#include "format/argspec.h"
#include "runtime/runtime.h"
#include "symbols/cxxname.h"

#define TABLE_BITS FNT_ARGSPEC_TABLE_BITS
#define TABLE_SIZE (1u << TABLE_BITS)
#define MAX_RULES 100000

struct rule {
	char *glob;
	char *items;               /* the item text, as given */
	struct fnt_argspec spec;
};

uint32_t fnt_argspec_count;
static struct rule *rules;
static int n_rules;
struct fnt_argspec_entry *fnt_argspec_table;
#define table fnt_argspec_table
/* rules whose glob is a plain name (all of --auto-args'), by name hash:
 * index + 1 in rules[], chained through next_exact */
#define EXACT_BITS 14
static int exact_head[1 << EXACT_BITS];
static int *next_exact;

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h & ((1u << EXACT_BITS) - 1);
}

/* the spec text: FNTRACE_ARGS, or the file FNTRACE_ARGS_FILE names */
static char *specs_text(void)
{
	const char *env = getenv(FNTRACE_ENV_ARGS), *file = getenv(FNTRACE_ENV_ARGS_FILE);
	if (file && *file) {
		struct stat st;
		int fd = fnt_open_knob_file(file, &st);   /* a FIFO or a device would block or never end */
		char *buf = NULL;
		if (fd < 0)
			return NULL;
		if (st.st_size > 0 && st.st_size < (64 << 20) && (buf = malloc((size_t)st.st_size + 1))) {
			ssize_t n = 0, r;
			while (n < st.st_size && (r = read(fd, buf + n, (size_t)(st.st_size - n))) > 0)
				n += r;
			buf[n] = 0;
		}
		close(fd);
		return buf;
	}
	return env && *env ? strdup(env) : NULL;
}

void fnt_argspec_init(void)
{
	char *dup = specs_text(), *save = NULL;
	size_t cap = 0;
	if (!dup)
		return;
	for (char *tok = strtok_r(dup, ";\n", &save); tok && n_rules < MAX_RULES; tok = strtok_r(NULL, ";\n", &save)) {
		char *at = strrchr(tok, '@');
		if ((size_t)n_rules == cap) {
			cap = cap ? cap * 2 : 64;
			struct rule *nr = realloc(rules, cap * sizeof(*rules));
			int *ne = realloc(next_exact, cap * sizeof(*next_exact));
			if (nr)
				rules = nr;
			if (ne)
				next_exact = ne;
			if (!nr || !ne)
				break;
		}
		struct rule *r = &rules[n_rules];
		if (!at || at == tok)
			continue;
		*at = 0;
		memset(&r->spec, 0, sizeof(r->spec));
		if (fnt_argspec_parse(at + 1, strlen(at + 1), &r->spec))
			continue;
		r->glob = tok;
		r->items = at + 1;
		next_exact[n_rules] = -1;
		if (!strpbrk(tok, "*?[\\")) {
			uint32_t h = name_hash(tok);
			next_exact[n_rules] = exact_head[h] - 1;
			exact_head[h] = n_rules + 1;
		}
		n_rules++;
	}
	if (!n_rules)
		return;
	table = mmap(NULL, TABLE_SIZE * sizeof(*table), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (table == MAP_FAILED) {
		table = NULL;
		n_rules = 0;
	}
}

int fnt_argspec_wanted(void)
{
	return n_rules > 0;
}

static inline uint32_t addr_hash(uintptr_t a)
{
	return fnt_argspec_hash(a);
}

/* The name a C++ symbol is written with, without its parameters:
 * _Z5greeti -> greet, _ZN2ns3Foo3barEv -> ns::Foo::bar.  Enough for globs
 * on plain and qualified names; anything else is matched mangled only. */
static int plain_name(const char *m, char *out, size_t cap)
{
	size_t o = 0;
	int nested;
	if (m[0] != '_' || m[1] != 'Z')
		return -1;
	m += 2;
	nested = *m == 'N';
	if (nested) {
		m++;
		while (*m == 'K' || *m == 'V' || *m == 'r')
			m++;
	}
	do {
		size_t len = 0;
		if (*m < '1' || *m > '9')
			return -1;
		while (*m >= '0' && *m <= '9')
			len = len * 10 + (size_t)(*m++ - '0');
		if (strnlen(m, len) < len || o + len + 3 >= cap)
			return -1;
		if (o) {
			out[o++] = ':';
			out[o++] = ':';
		}
		memcpy(out + o, m, len);
		o += len;
		m += len;
	} while (nested && *m != 'E');
	out[o] = 0;
	return 0;
}

/* Every name a function goes by: as in the symbol table, the plain
 * qualified name, and for C++ the forms the tool shows (symbols/cxxname.c:
 * full signature, short, simple), so -A globs match as -F/-N do. */
struct fn_names {
	const char *v[6];
	char *own[4];
	int n;
};

static void names_init(struct fn_names *ns, const char *name, const char *plain)
{
	/* the signature without a template function's return type ('std::*'
	 * must not name every function returning a std:: type), then the
	 * shorter forms */
	static const enum cxxname_style styles[] = { CXXNAME_SIG, CXXNAME_SHORT, CXXNAME_SIMPLE, CXXNAME_NAME };

	memset(ns, 0, sizeof(*ns));
	ns->v[ns->n++] = name;
	if (plain)
		ns->v[ns->n++] = plain;
	for (int i = 0; i < 4 && name[0] == '_' && name[1] == 'Z'; i++)
		if ((ns->own[i] = cxxname_demangle(name, styles[i])))
			ns->v[ns->n++] = ns->own[i];
}

static void names_release(struct fn_names *ns)
{
	for (int i = 0; i < 4; i++)
		free(ns->own[i]);
}

/* does rule i apply to the function? exact rules are found by hash */
static int rule_applies(int i, const struct fn_names *ns)
{
	int glob = next_exact[i] == -1 && strpbrk(rules[i].glob, "*?[\\");
	for (int k = 0; k < ns->n; k++)
		if (glob ? !fnmatch(rules[i].glob, ns->v[k], 0) || !strcmp(rules[i].glob, ns->v[k])
			 : !strcmp(rules[i].glob, ns->v[k]))     /* (a name with [abi:cxx11] is no glob) */
			return 1;
	return 0;
}

/* a quick no for the common case: no glob rule, no exact rule of this name */
static int any_rule_may_apply(const struct fn_names *ns)
{
	static int has_globs = -1;
	if (has_globs < 0) {
		has_globs = 0;
		for (int i = 0; i < n_rules; i++)
			if (strpbrk(rules[i].glob, "*?[\\"))
				has_globs = 1;
	}
	if (has_globs)
		return 1;
	for (int n = 0; n < ns->n; n++)
		for (int k = exact_head[name_hash(ns->v[n])] - 1; k >= 0; k = next_exact[k])
			if (!strcmp(rules[k].glob, ns->v[n]))
				return 1;
	return 0;
}

/* one record's items (ARGS: the argN/fpargN ones; RETVAL: retval) as the
 * fast path writes them, with the worst case of the body */
static void plan_list(struct fnt_argplan_list *l, const struct fnt_argspec *spec, int ret)
{
	memset(l, 0, sizeof(*l));
	l->fast = 1;
	l->gp = 1;
	for (unsigned i = 0; i < spec->n; i++) {
		const struct fnt_arg_item *it = &spec->item[i];
		unsigned src;
		if ((it->src == FNT_SRC_RET) != ret)
			continue;
		l->max += (uint16_t)fnt_argspec_item_max(it);
		switch (it->fmt) {
		case FNT_FMT_STRUCT:
			continue;           /* no payload */
		case FNT_FMT_INT: case FNT_FMT_UINT: case FNT_FMT_HEX: case FNT_FMT_PTR:
		case FNT_FMT_CHAR: case FNT_FMT_BOOL: case FNT_FMT_FLOAT: case FNT_FMT_ENUM:
			l->kind[l->n] = FNT_PLAN_RAW;
			l->size[l->n] = it->size;
			break;
		case FNT_FMT_STR:
			l->kind[l->n] = FNT_PLAN_STR;
			l->n_str++;
			break;
		default:
			l->fast = 0;        /* written through the spec */
			continue;
		}
		if (it->src == FNT_SRC_RET)
			src = it->fmt == FNT_FMT_FLOAT ? FNT_REGS_XMM(0) : FNT_REGS_RAX;
		else if (it->src == FNT_SRC_FP)
			src = FNT_REGS_XMM(it->index);
		else if (it->index < 6)
			src = FNT_REGS_ARG(it->index);
		else
			src = FNT_PLAN_STACK | (1u + it->index - 6u);
		if (!(src & FNT_PLAN_STACK) && src >= FNT_REGS_XMM(0))
			l->gp = 0;
		l->src[l->n++] = (uint8_t)src;
	}
	l->len_len = (uint8_t)fnt_varint_len(l->max);
	l->plain = l->fast && l->gp && !l->n_str;
}

/* the return list in brief (struct fnt_argplan_ret1) */
static void plan_ret1(struct fnt_argplan_ret1 *r, const struct fnt_argplan_list *l)
{
	if (!l->max) {
		r->kind = FNT_RET1_NONE;
	} else if (l->plain && l->n == 1 && l->max == l->size[0] && l->size[0] <= 8 &&
		   !(l->src[0] & FNT_PLAN_STACK) && l->src[0] < FNT_REGS_XMM(0)) {
		r->kind = FNT_RET1_ONE;
		r->src = l->src[0];
		r->size = l->size[0];
	} else {
		r->kind = FNT_RET1_LIST;
	}
}

/* a function matched: merge every rule that names it, record it.  no_ret:
 * it is a library call recorded as zero-length, whose exit comes before it
 * runs: its retval items are left out (the views then show none, where a
 * missing value shows "?") */
static void add_function(const char *name, uintptr_t addr, int no_ret)
{
	struct fnt_argspec *spec = NULL;
	struct fnt_argplan *plan;
	char text[1024];
	size_t tl = 0;

	char plain[512];
	const char *pl = plain_name(name, plain, sizeof(plain)) ? NULL : plain;
	struct fn_names ns;

	if (fnt_argspec_find(addr) || fnt_argspec_count >= TABLE_SIZE / 2)
		return;
	names_init(&ns, name, pl);
	if (!any_rule_may_apply(&ns)) {
		names_release(&ns);
		return;
	}
	for (int i = 0; i < n_rules; i++) {
		if (!rule_applies(i, &ns))
			continue;
		if (!spec && !(spec = calloc(1, sizeof(*spec))))
			break;
		/* every rule that names it adds its items, up to FNT_ARGS_MAX:
		 * the items past it are left out (their text too, so that the
		 * text describes exactly the items kept) */
		const char *it = rules[i].items;
		for (unsigned k = 0; k < rules[i].spec.n && spec->n < FNT_ARGS_MAX; k++) {
			const char *comma = strchr(it, ',');
			size_t il = comma ? (size_t)(comma - it) : strlen(it);
			if (no_ret && rules[i].spec.item[k].src == FNT_SRC_RET) {
				it = comma ? comma + 1 : it + il;
				continue;
			}
			if (tl + il + 2 >= sizeof(text))
				break;
			spec->item[spec->n++] = rules[i].spec.item[k];
			if (tl)
				text[tl++] = ',';
			memcpy(text + tl, it, il);
			tl += il;
			it = comma ? comma + 1 : it + il;
		}
	}
	names_release(&ns);
	if (!spec || !spec->n) {
		free(spec);
		return;
	}
	text[tl] = 0;
	/* the text must describe exactly the items kept */
	struct fnt_argspec check = { 0 };
	if (fnt_argspec_parse(text, tl, &check) || check.n != spec->n ||
	    !(plan = aligned_alloc(_Alignof(struct fnt_argplan), sizeof(*plan)))) {
		free(spec);
		return;
	}
	memset(plan, 0, sizeof(*plan));
	plan->spec = spec;
	plan_list(&plan->args, spec, 0);
	plan_list(&plan->ret, spec, 1);
	plan_ret1(&plan->ret1, &plan->ret);
	struct fnt_meta_argspec rec = { .addr = addr };
	fnt_meta_append(FNT_META_ARGSPEC, &rec, sizeof(rec), text, tl + 1);
	for (uint32_t h = addr_hash(addr);; h = (h + 1) & (TABLE_SIZE - 1)) {
		if (table[h].addr)
			continue;
		table[h].plan = plan;
		table[h].text = strdup(text);
		__atomic_store_n(&table[h].addr, addr, __ATOMIC_RELEASE);
		break;
	}
	/* the trampolines' bit first: a frame the plain path pushes leaves
	 * its plan as it was, so that path must be closed before any frame
	 * can get a plan (fentry.c stores one once it sees the count) */
	__atomic_fetch_or(&fnt_fast_off, FNT_FAST_ARGS, __ATOMIC_SEQ_CST);
	__atomic_store_n(&fnt_argspec_count, fnt_argspec_count + 1, __ATOMIC_RELEASE);
}

static void add_symbol(void *ctx, const char *name, uint64_t vaddr)
{
	add_function(name, (uintptr_t)(*(uint64_t *)ctx + vaddr), 0);
}

static void add_import(void *ctx, const char *name, uint64_t vaddr)
{
	add_function(name, (uintptr_t)(*(uint64_t *)ctx + vaddr), fnt_libcall_zero(name));
}

/* Walk the module file's symbol table (.symtab, else .dynsym) for the
 * functions the globs name.  The file is read, never the mapped image.
 * Only modules built with -pg -mfentry or patchable entries reach the
 * trampoline: the others (libc...) would fill the table for nothing. */
void fnt_argspec_module(const char *path, uint64_t bias)
{
	struct fnt_elf e;
	int lc;
	if (!n_rules || !table || fnt_elf_open(&e, path))
		return;
	/* -pg -mfentry, patchable entries, or prologues that -P moves */
	if ((fnt_elf_hooks(&e, path) & (FNT_ELF_FENTRY | FNT_ELF_PATCHABLE)) || fnt_prologue_wanted(&e, path))
		fnt_elf_functions(&e, add_symbol, &bias);
	if ((lc = fnt_libcall_traced(&e, path)) != 0)
		fnt_elf_imports(&e, lc == 2, add_import, &bias);   /* library calls: by GOT slot */
	fnt_elf_close(&e);
}

/* a forked child writes its own file: the specs go in again */
void fnt_argspec_fork_child(void)
{
	if (!table)
		return;
	for (uint32_t h = 0; h < TABLE_SIZE; h++) {
		if (!table[h].addr || !table[h].text)
			continue;
		struct fnt_meta_argspec rec = { .addr = table[h].addr };
		fnt_meta_append(FNT_META_ARGSPEC, &rec, sizeof(rec), table[h].text, strlen(table[h].text) + 1);
	}
}
