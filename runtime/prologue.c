/*
 * prologue.c - `record -P GLOB` on code built with no instrumentation at all
 * (no -pg, no -finstrument-functions, no patchable entry): the first whole
 * instructions (>= 5 bytes) of each selected function move to a trampoline
 * within rel32 reach of the module, and a `jmp` to it takes their place.
 * The trampoline calls fnt_prologue_entry (arch/x86_64/fentry.S), which
 * records the entry through the fentry shadow stack (so exits, -A/-R and
 * the unwinding rules are fentry mode's), then runs the moved instructions
 * and jumps back after them.
 *
 * Decoding is capstone's (Debian libcapstone4), loaded with dlopen the first
 * time a module needs it, so that no traced program loads it otherwise.
 * The scan of every function body for branches (below) is Zydis's (Debian
 * libzydis4) when it loads, else capstone's: it decodes the whole of .text,
 * and Zydis, which formats no text, does that about four times faster
 * (doc/patch.md has the figures); both find the same branches.
 * What cannot be moved safely is refused, never guessed, with a reason that
 * the trace keeps (FNT_META_PATCH) and `fntrace info` lists:
 *   - a function shorter than the jump, or one whose first bytes end it;
 *   - any relative branch or call, from anywhere in the module, that lands
 *     strictly inside the moved bytes, or a jump of the function itself
 *     back to its first instruction (each turn of that loop would look like
 *     a call); every function symbol of the module is decoded for this;
 *   - an indirect call among the moved bytes, or a call to the next
 *     instruction; loop/jrcxz/xbegin (no rel32 form); a RIP-relative operand
 *     whose target the trampoline cannot reach.  (A direct call moves: the
 *     trampoline pushes the return address the call had in the function,
 *     so the callee returns there and unwinders see the function's frame);
 *   - a function outside .text (.init, .plt, .fini), _start, a symbol with
 *     no size, gcc's split-off foo.cold parts (entered by a jump, with no
 *     return address on top of the stack), and anything capstone cannot
 *     decode.
 * Modules in the system's library directories (libc, libstdc++...) are never
 * patched: their calls are seen as library calls.  Jumps through tables
 * (switch) cannot be followed; compilers never aim them at a function's
 * first bytes, which hold its prologue.
 *
 * Patching happens when the module is first seen (from the constructor,
 * before main; right after dlopen returns for a plugin), like the pads of
 * patch.c, whose site table, --patch-signal and fnt_patch() switch these
 * sites too: a thread stopped between two moved instructions is moved to
 * the same instruction in the trampoline.
 */
#ifndef FNT_STATIC_ARCHIVE
#if __has_include(<Zydis/Decoder.h>)
#include <Zydis/Decoder.h>
#define HAVE_ZYDIS 1
#endif
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <elf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fntrace.h"
#include "runtime/runtime.h"

void fnt_prologue_entry(void) FNT_HIDDEN;

/* capstone, as loaded by dlopen: the library built against (CS_API_MAJOR) */
#define CS_STR2(x) #x
#define CS_STR(x) CS_STR2(x)
static struct {
	int tried, ok;
	csh h;
	cs_insn *insn;
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
} cs;

static int cs_load(void)
{
	if (cs.tried)
		return cs.ok ? 0 : -1;
	cs.tried = 1;
	/* the real dlopen: ours would scan the modules under the lock we hold */
	void *(*real_dlopen)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	void *lib = real_dlopen ? real_dlopen("libcapstone.so." CS_STR(CS_API_MAJOR), RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!lib)
		return -1;
	cs_err (*open_)(cs_arch, cs_mode, csh *) = (cs_err (*)(cs_arch, cs_mode, csh *))dlsym(lib, "cs_open");
	cs_err (*option)(csh, cs_opt_type, size_t) = (cs_err (*)(csh, cs_opt_type, size_t))dlsym(lib, "cs_option");
	cs_insn *(*malloc_)(csh) = (cs_insn * (*)(csh)) dlsym(lib, "cs_malloc");
	cs.disasm_iter = (bool (*)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *))dlsym(lib, "cs_disasm_iter");
	if (!open_ || !option || !malloc_ || !cs.disasm_iter || open_(CS_ARCH_X86, CS_MODE_64, &cs.h) != CS_ERR_OK)
		return -1;
	if (option(cs.h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK || !(cs.insn = malloc_(cs.h)))
		return -1;
	cs.ok = 1;
	return 0;
}

#ifdef HAVE_ZYDIS
/* Zydis for the body scan, as loaded by dlopen; not loaded when the
 * FNTRACE_PATCH_SCAN environment variable says "capstone" (the tests
 * compare the two) */
static struct {
	int tried, ok;
	ZydisDecoder d;
	ZyanStatus (*decode)(const ZydisDecoder *, ZydisDecoderContext *, const void *, ZyanUSize,
			     ZydisDecodedInstruction *);
} zy;

#define ZY_SONAME "libZydis.so.4.0"     /* the Zydis 4.0 headers built against */

static int zy_load(void)
{
	if (zy.tried)
		return zy.ok ? 0 : -1;
	zy.tried = 1;
	const char *env = getenv(FNTRACE_ENV_PATCH_SCAN);
	if (env && !strcmp(env, "capstone"))
		return -1;
	void *(*real_dlopen)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	void *lib = real_dlopen ? real_dlopen(ZY_SONAME, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!lib)
		return -1;
	ZyanStatus (*init)(ZydisDecoder *, ZydisMachineMode, ZydisStackWidth) =
		(ZyanStatus(*)(ZydisDecoder *, ZydisMachineMode, ZydisStackWidth))dlsym(lib, "ZydisDecoderInit");
	zy.decode = (ZyanStatus(*)(const ZydisDecoder *, ZydisDecoderContext *, const void *, ZyanUSize,
				    ZydisDecodedInstruction *))dlsym(lib, "ZydisDecoderDecodeInstruction");
	if (!init || !zy.decode || ZYAN_FAILED(init(&zy.d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return -1;
	zy.ok = 1;
	return 0;
}
#else
static int zy_load(void)
{
	return -1;      /* built without Zydis's headers: capstone scans */
}
#endif

static int in_group(const cs_insn *in, unsigned g)
{
	for (unsigned i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == g)
			return 1;
	return 0;
}

/* the absolute target of a relative branch or call, else 0 */
static uint64_t rel_target(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	if (!in_group(in, CS_GRP_BRANCH_RELATIVE) || x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return 0;
	return (uint64_t)x->operands[0].imm;
}

/* ---- what the module's code branches to ---- */

struct branch {
	uint64_t to;            /* target (runtime address) */
	uint64_t from_fn;       /* start of the function the branch is in */
	int is_call;
};

struct fn_sym {
	uint64_t at;            /* runtime address */
	uint64_t size;
	const char *name;
	int selected, in_text, bad_body;
};

struct module_scan {
	uint64_t bias, text_lo, text_hi;
	struct fn_sym *fns;
	size_t n_fns, cap_fns;
	struct branch *br;
	size_t n_br, cap_br;
	char **globs;
	int n_globs;
};

static void collect_fn(void *ctx, const Elf64_Sym *s, const char *name)
{
	struct module_scan *ms = ctx;
	if (ms->n_fns == ms->cap_fns) {
		size_t nc = ms->cap_fns ? ms->cap_fns * 2 : 256;
		struct fn_sym *f = realloc(ms->fns, nc * sizeof(*f));
		if (!f)
			return;
		ms->fns = f;
		ms->cap_fns = nc;
	}
	struct fn_sym *f = &ms->fns[ms->n_fns++];
	memset(f, 0, sizeof(*f));
	f->at = ms->bias + s->st_value;
	f->size = s->st_size;
	f->name = name;
	f->in_text = s->st_value >= ms->text_lo && s->st_value < ms->text_hi && s->st_size <= ms->text_hi - s->st_value;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct fn_sym *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

static int br_cmp(const void *a, const void *b)
{
	const struct branch *x = a, *y = b;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Moved bytes end at most 4 + 15 bytes past a function's start (an
 * endbr64, then instructions while fewer than 5 bytes have moved), and a
 * branch matters to plan_function only when it lands there; a call to a
 * function's very start never does.  Keeping only those, the list to sort
 * is a fraction of the module's branches. */
#define MOVED_REACH 32

static int may_matter(const struct module_scan *ms, uint64_t to, int is_call)
{
	size_t lo = 0, hi = ms->n_fns;  /* the last function starting at or before `to` */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ms->fns[mid].at <= to)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	uint64_t at = ms->fns[--lo].at;
	if (to - at >= MOVED_REACH)
		return 0;
	if (!is_call || to != at)
		return 1;
	/* a call to a function's start: it matters only when that start lies
	 * in another function's first bytes (overlapping symbols) */
	while (lo && ms->fns[lo - 1].at == at)
		lo--;
	return lo && to - ms->fns[lo - 1].at < MOVED_REACH;
}

static int add_branch(struct module_scan *ms, uint64_t to, uint64_t from_fn, int is_call)
{
	if (!may_matter(ms, to, is_call))
		return 0;
	if (ms->n_br == ms->cap_br) {
		size_t nc = ms->cap_br ? ms->cap_br * 2 : 1024;
		struct branch *b = realloc(ms->br, nc * sizeof(*b));
		if (!b)
			return -1;
		ms->br = b;
		ms->cap_br = nc;
	}
	ms->br[ms->n_br++] = (struct branch){ to, from_fn, is_call };
	return 0;
}

#ifdef HAVE_ZYDIS
/* f's relative branches by Zydis: 0, or -1 when some instruction does not
 * decode (f->bad_body) or memory ran out */
static int scan_zydis(struct module_scan *ms, struct fn_sym *f)
{
	const uint8_t *code = (const uint8_t *)(uintptr_t)f->at;
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction in;
	for (uint64_t off = 0; off < f->size; off += in.length) {
		if (ZYAN_FAILED(zy.decode(&zy.d, &ctx, code + off, f->size - off, &in))) {
			f->bad_body = 1;
			return -1;
		}
		for (unsigned k = 0; k < 2; k++)
			if (in.raw.imm[k].is_relative &&
			    add_branch(ms, f->at + off + in.length + (uint64_t)in.raw.imm[k].value.s, f->at,
				       in.mnemonic == ZYDIS_MNEMONIC_CALL))
				return -1;
	}
	return 0;
}

#endif

/* the same by capstone */
static int scan_capstone(struct module_scan *ms, struct fn_sym *f)
{
	const uint8_t *code = (const uint8_t *)(uintptr_t)f->at;
	size_t left = f->size;
	uint64_t addr = f->at;
	while (left) {
		if (!cs.disasm_iter(cs.h, &code, &left, &addr, cs.insn)) {
			f->bad_body = 1;
			return -1;
		}
		uint64_t to = rel_target(cs.insn);
		if (to && add_branch(ms, to, f->at, in_group(cs.insn, CS_GRP_CALL)))
			return -1;
	}
	return 0;
}

/* decode every function of .text: its relative branches into ms->br,
 * sorted; -1 when memory ran out (the list is not whole) */
static int scan_branches(struct module_scan *ms)
{
#ifdef HAVE_ZYDIS
	int fast = !zy_load();
#endif
	for (size_t i = 0; i < ms->n_fns; i++) {
		struct fn_sym *f = &ms->fns[i];
		if (!f->in_text || !f->size || (i && ms->fns[i - 1].at == f->at))
			continue;       /* (an alias was decoded already) */
#ifdef HAVE_ZYDIS
		int r = fast ? scan_zydis(ms, f) : scan_capstone(ms, f);
#else
		int r = scan_capstone(ms, f);
#endif
		if (r && !f->bad_body)
			return -1;
	}
	qsort(ms->br, ms->n_br, sizeof(*ms->br), br_cmp);
	return 0;
}

/* the first branch whose target is >= addr */
static size_t br_lower(const struct module_scan *ms, uint64_t addr)
{
	size_t lo = 0, hi = ms->n_br;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ms->br[mid].to < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- one function's plan ---- */

#define MAX_MOVED 8
enum { MV_PLAIN, MV_RIPREL, MV_JMP, MV_JCC, MV_CALL };

struct moved {
	uint8_t off, len, kind, disp_off, cc;
	uint64_t target;        /* MV_RIPREL: the operand's address; MV_JMP/JCC: the branch target */
};

struct plan {
	const char *name;
	uint64_t fn, at;        /* the function, and where its jmp goes (after an endbr64) */
	uint8_t len, n;         /* bytes moved, instructions moved */
	struct moved mv[MAX_MOVED];
	size_t tsize;           /* the trampoline's size */
};

#define TR_HEAD 13              /* .quad fn; call fnt_prologue_entry's stub (entered here, at +8) */

static size_t emit_size(const struct moved *m)
{
	return m->kind == MV_JMP ? 5 : m->kind == MV_JCC ? 6 : m->kind == MV_CALL ? 25 : m->len;
}

/* 0, or the FNT_PATCH_* reason the function cannot be patched */
static unsigned plan_function(const struct module_scan *ms, const struct fn_sym *f, struct plan *pl)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)f->at;
	memset(pl, 0, sizeof(*pl));
	if (!f->in_text)
		return FNT_PATCH_NOT_TEXT;
	if (!f->size)
		return FNT_PATCH_NO_SIZE;
	if (!strcmp(f->name, "_start") || !strcmp(f->name, "_init") || !strcmp(f->name, "_fini"))
		return FNT_PATCH_NOT_TEXT;
	if (strstr(f->name, ".cold"))
		return FNT_PATCH_FRAGMENT;     /* gcc's split-off part: its start is no entry */
	if (f->bad_body)
		return FNT_PATCH_UNDECODABLE;
	pl->name = f->name;
	pl->fn = f->at;
	pl->at = f->at;
	if (f->size >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		pl->at += 4;    /* endbr64 stays: indirect calls still land on it */
	uint64_t end = f->at + f->size;
	const uint8_t *code = (const uint8_t *)(uintptr_t)pl->at;
	size_t left = end - pl->at;
	uint64_t addr = pl->at;
	while (pl->len < 5) {
		_Static_assert(4 + 4 + 15 <= MOVED_REACH, "scan_branches keeps the branches into the moved bytes");
		if (!left || pl->n == MAX_MOVED)
			return FNT_PATCH_TOO_SHORT;
		if (!cs.disasm_iter(cs.h, &code, &left, &addr, cs.insn))
			/* an instruction that runs past the symbol's end: too short */
			return left < 16 ? FNT_PATCH_TOO_SHORT : FNT_PATCH_UNDECODABLE;
		const cs_insn *in = cs.insn;
		const cs_x86 *x = &in->detail->x86;
		struct moved *m = &pl->mv[pl->n++];
		m->off = pl->len;
		m->len = (uint8_t)in->size;
		m->kind = MV_PLAIN;
		pl->len = (uint8_t)(pl->len + in->size);
		if (in_group(in, CS_GRP_CALL)) {
			/* a direct call is 5 bytes, so always the last one moved:
			 * the trampoline pushes the return address it has in the
			 * function and jumps, so the callee returns there and any
			 * unwinder sees the function's own frame */
			uint64_t to = rel_target(in);
			if (!to || in->size != 5 || in->bytes[0] != 0xe8)
				return FNT_PATCH_CALL;
			if (to == in->address + in->size)
				return FNT_PATCH_CANNOT_MOVE;     /* a call to the next instruction */
			m->kind = MV_CALL;
			m->target = to;
		} else if (in_group(in, CS_GRP_BRANCH_RELATIVE)) {
			uint64_t to = rel_target(in);
			if (in->id == X86_INS_JMP && to) {
				m->kind = MV_JMP;
			} else if (to && (in->bytes[0] & 0xf0) == 0x70 && in->size == 2) {
				m->kind = MV_JCC;
				m->cc = in->bytes[0] & 0x0f;
			} else if (to && in->bytes[0] == 0x0f && (in->bytes[1] & 0xf0) == 0x80 && in->size == 6) {
				m->kind = MV_JCC;
				m->cc = in->bytes[1] & 0x0f;
			} else {
				return FNT_PATCH_CANNOT_MOVE;     /* loop, jrcxz, xbegin, prefixed forms */
			}
			m->target = to;
		}
		for (unsigned k = 0; k < x->op_count; k++)
			if (x->operands[k].type == X86_OP_MEM && x->operands[k].mem.base == X86_REG_RIP) {
				if (m->kind != MV_PLAIN || x->encoding.disp_offset == 0 || x->encoding.disp_size != 4)
					return FNT_PATCH_CANNOT_MOVE;
				m->kind = MV_RIPREL;
				m->disp_off = x->encoding.disp_offset;
				m->target = in->address + in->size + (uint64_t)(int64_t)x->operands[k].mem.disp;
			}
		/* only the last moved instruction may leave for good */
		int leaves = in_group(in, CS_GRP_RET) || in_group(in, CS_GRP_IRET) || in->id == X86_INS_JMP ||
			     in->id == X86_INS_LJMP || in->id == X86_INS_UD2 || in->id == X86_INS_HLT ||
			     in->id == X86_INS_INT3;
		if (leaves && pl->len < 5)
			return FNT_PATCH_TOO_SHORT;
		pl->tsize += emit_size(m);
	}
	/* a branch into the moved bytes, or a jump of the function itself back
	 * to its first instruction (or to its endbr64) */
	for (size_t k = br_lower(ms, pl->fn); k < ms->n_br && ms->br[k].to < pl->at + pl->len; k++) {
		const struct branch *b = &ms->br[k];
		if (b->to > pl->at)
			return FNT_PATCH_BRANCH_INTO;
		if (!b->is_call && b->from_fn == pl->fn)
			return FNT_PATCH_LOOP_TO_START;
	}
	pl->tsize += TR_HEAD + 5;
	return 0;
}

/* ---- trampolines ---- */

static int fits32(int64_t v)
{
	return v == (int32_t)v;
}

static void put_rel32(uint8_t *p, uint64_t from_next, uint64_t to)
{
	int32_t r = (int32_t)(int64_t)(to - from_next);
	memcpy(p, &r, 4);
}

/* Write pl's trampoline at t (whose runtime address is t itself), entering
 * through the stub at `stub`; the boundary map of the site; 0 or the reason
 * it cannot be reached. */
static unsigned emit(const struct plan *pl, uint8_t *t, const uint8_t *stub, struct fnt_patch_site *site)
{
	uint64_t base = (uint64_t)(uintptr_t)t;
	uint8_t *q = t;
	const uint8_t *orig = (const uint8_t *)(uintptr_t)pl->at;
	if (!fits32((int64_t)((uint64_t)(uintptr_t)stub - (base + TR_HEAD))))
		return FNT_PATCH_NO_ROOM;
	/* the function's address first, where fnt_prologue_entry finds it
	 * 13 bytes before its return address, so that it returns to the
	 * moved instructions right after the call, as the call predicts */
	memcpy(q, &pl->fn, 8);
	q[8] = 0xe8;
	put_rel32(q + 9, base + TR_HEAD, (uint64_t)(uintptr_t)stub);
	q += TR_HEAD;
	site->nb = 0;
	for (unsigned i = 0; i < pl->n; i++) {
		const struct moved *m = &pl->mv[i];
		uint64_t here = (uint64_t)(uintptr_t)q;
		if (i) {
			site->from[site->nb] = m->off;
			site->to[site->nb++] = (uint8_t)(q - t - TR_HEAD);
		}
		switch (m->kind) {
		case MV_PLAIN:
			memcpy(q, orig + m->off, m->len);
			break;
		case MV_RIPREL:
			memcpy(q, orig + m->off, m->len);
			if (!fits32((int64_t)(m->target - (here + m->len))))
				return FNT_PATCH_CANNOT_MOVE;
			put_rel32(q + m->disp_off, here + m->len, m->target);
			break;
		case MV_JMP:
			q[0] = 0xe9;
			if (!fits32((int64_t)(m->target - (here + 5))))
				return FNT_PATCH_CANNOT_MOVE;
			put_rel32(q + 1, here + 5, m->target);
			break;
		case MV_CALL: {
			uint64_t ret = pl->at + m->off + m->len;
			uint32_t lo = (uint32_t)ret, hi = (uint32_t)(ret >> 32);
			static const uint8_t lea[5] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };   /* lea -8(%rsp),%rsp */
			memcpy(q, lea, 5);
			q[5] = 0xc7, q[6] = 0x04, q[7] = 0x24;                          /* movl $lo,(%rsp) */
			memcpy(q + 8, &lo, 4);
			q[12] = 0xc7, q[13] = 0x44, q[14] = 0x24, q[15] = 0x04;         /* movl $hi,4(%rsp) */
			memcpy(q + 16, &hi, 4);
			q[20] = 0xe9;
			if (!fits32((int64_t)(m->target - (here + 25))))
				return FNT_PATCH_CANNOT_MOVE;
			put_rel32(q + 21, here + 25, m->target);
			break;
		}
		case MV_JCC:
			q[0] = 0x0f;
			q[1] = (uint8_t)(0x80 | m->cc);
			if (!fits32((int64_t)(m->target - (here + 6))))
				return FNT_PATCH_CANNOT_MOVE;
			put_rel32(q + 2, here + 6, m->target);
			break;
		}
		q += emit_size(m);
	}
	uint64_t back = pl->at + pl->len;
	q[0] = 0xe9;
	if (!fits32((int64_t)(back - ((uint64_t)(uintptr_t)q + 5))))
		return FNT_PATCH_NO_ROOM;
	put_rel32(q + 1, (uint64_t)(uintptr_t)q + 5, back);
	/* the site: a jmp at `at` to the trampoline's call */
	int64_t rel = (int64_t)(base + 8 - (pl->at + 5));
	if (!fits32(rel))
		return FNT_PATCH_NO_ROOM;
	site->at = pl->at;
	site->len = pl->len;
	site->resume = base + TR_HEAD;
	memcpy(site->orig, orig, 5);
	site->call[0] = 0xe9;
	put_rel32(site->call + 1, pl->at + 5, base + 8);
	return 0;
}

/* ---- the module ---- */

static int is_system_library(const char *path)
{
	static const char *const dirs[] = { "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/lib32/", "/usr/lib32/" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return 1;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return fnt_elf_is_runtime(path) || !strncmp(base, "ld-linux", 8) || !strncmp(base, "libc.so", 7);
}

int fnt_prologue_wanted(const struct fnt_elf *e, const char *path)
{
	char **globs;
	if (!fnt_patch_globs(&globs) || !*path || is_system_library(path))
		return 0;
	return !fnt_elf_hooks(e, path);
}

int fnt_patch_noted;

void fnt_patch_note(unsigned what, uint64_t addr, uint32_t count, const char *name)
{
	fnt_patch_noted = 1;
	struct fnt_meta_patch rec = { addr, what, count };
	fnt_meta_append(FNT_META_PATCH, &rec, sizeof(rec), name, strnlen(name, 4000) + 1);
}

void fnt_prologue_module(const struct fnt_elf *e, const char *path, uint64_t bias, char **globs, int n_globs)
{
	struct module_scan ms = { .bias = bias, .globs = globs, .n_globs = n_globs };
	struct plan *plans = NULL;
	struct fnt_patch_site *sites = NULL;
	size_t n_plans = 0, n_sites = 0, total = 0, skipped = 0;
	uint64_t lo = UINT64_MAX, hi = 0;

	const Elf64_Shdr *text = fnt_elf_section(e, ".text", NULL);
	if (!text)
		return;
	ms.text_lo = text->sh_addr;
	ms.text_hi = text->sh_addr + text->sh_size;
	fnt_elf_symbols(e, STT_FUNC, collect_fn, &ms);
	if (!ms.n_fns)
		goto done;      /* no symbol table (stripped): "patched 0" says that -P looked */
	qsort(ms.fns, ms.n_fns, sizeof(*ms.fns), fn_cmp);
	/* selected: any name of the address matches a -P glob (-A/-R and
	 * --auto-args describe the functions -P selects, they select none) */
	for (size_t i = 0; i < ms.n_fns; i++)
		if (fnt_patch_glob_match(ms.fns[i].name, globs, n_globs)) {
			size_t j = i;
			while (j > 0 && ms.fns[j - 1].at == ms.fns[i].at)
				j--;
			ms.fns[j].selected = 1;
		}
	size_t want = 0;
	for (size_t i = 0; i < ms.n_fns; i++)
		want += ms.fns[i].selected;
	if (!want)
		goto out;       /* nothing selected: no line for the module */
	if (cs_load()) {
		fnt_patch_note(FNT_PATCH_NO_DISASM, bias, (uint32_t)want, path);
		goto out;
	}
	plans = calloc(want, sizeof(*plans));
	if (!plans || scan_branches(&ms)) {
		/* without every branch, no function is known safe */
		for (size_t i = 0; i < ms.n_fns; i++)
			if (ms.fns[i].selected)
				fnt_patch_note(FNT_PATCH_NO_ROOM, ms.fns[i].at, 0, ms.fns[i].name);
		goto done;
	}
	for (size_t i = 0; i < ms.n_fns; i++) {
		const struct fn_sym *f = &ms.fns[i];
		if (!f->selected)
			continue;
		unsigned why = plan_function(&ms, f, &plans[n_plans]);
		if (why) {
			fnt_patch_note(why, f->at, 0, f->name);
			skipped++;
			continue;
		}
		total += (plans[n_plans].tsize + 15) & ~(size_t)15;
		if (plans[n_plans].at < lo)
			lo = plans[n_plans].at;
		if (plans[n_plans].at + plans[n_plans].len > hi)
			hi = plans[n_plans].at + plans[n_plans].len;
		n_plans++;
	}
	if (!n_plans)
		goto done;
	/* within reach of the module's whole mapping (RIP-relative operands
	 * point into its data) */
	uint64_t mlo, mhi;
	if (!fnt_elf_load_range(e, &mlo, &mhi)) {
		lo = bias + mlo < lo ? bias + mlo : lo;
		hi = bias + mhi > hi ? bias + mhi : hi;
	}
	uint8_t *area = fnt_near_alloc(lo, hi, 16 + total);
	sites = calloc(n_plans, sizeof(*sites));
	if (!area || !sites) {
		for (size_t i = 0; i < n_plans; i++)
			fnt_patch_note(FNT_PATCH_NO_ROOM, plans[i].fn, 0, plans[i].name);
		skipped += n_plans;
		goto done;
	}
	/* the stub: jmp *0(%rip); .quad fnt_prologue_entry */
	uintptr_t entry = (uintptr_t)fnt_prologue_entry;
	area[0] = 0xff;
	area[1] = 0x25;
	memset(area + 2, 0, 4);
	memcpy(area + 6, &entry, 8);
	uint8_t *t = area + 16;
	for (size_t i = 0; i < n_plans; i++) {
		unsigned why = emit(&plans[i], t, area, &sites[n_sites]);
		if (why) {
			fnt_patch_note(why, plans[i].fn, 0, plans[i].name);
			skipped++;
		} else {
			n_sites++;
		}
		t += (plans[i].tsize + 15) & ~(size_t)15;
	}
	fnt_near_seal(area, 16 + total);
	if (n_sites)
		fnt_patch_sites_add(sites, n_sites);
done:
	fnt_patch_note(FNT_PATCH_DONE, bias, (uint32_t)n_sites, path);
	(void)skipped;
out:
	free(sites);
	free(plans);
	free(ms.br);
	free(ms.fns);
}
#else
#include "runtime/runtime.h"
/* the static archive has no patching */
int fnt_patch_noted;

int fnt_prologue_wanted(const struct fnt_elf *e, const char *path)
{
	(void)e;
	(void)path;
	return 0;
}
#endif
