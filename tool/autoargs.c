/*
 * autoargs.c - `record --auto-args`: -A/-R specs for every function of the
 * program, made from its DWARF (parameter names and types, return type).
 *
 * The specs are ordinary item lists (format/argspec.h), so the runtime
 * captures exactly as for -A/-R and the decoder needs no DWARF to format.
 * The x86-64 SysV classification is followed as far as it matters: integer
 * and pointer parameters take rdi..r9 in order, floating-point ones xmm0..7;
 * a struct returned in memory passes its address in rdi first; a struct
 * passed by value takes one or two integer registers when it is at most 16
 * bytes of integers, none when larger, and is shown as {...}.  A long double
 * is a stack word pair (arguments) or st(0) (return); std::string (a hidden
 * reference, or a reference or pointer to one) and std::string_view (two
 * registers) are shown as strings.  Where the classification is unsure (a
 * small struct holding floats, __int128, variadic functions), the remaining
 * parameters are left out rather than read from the wrong register.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "format/argspec.h"
#include "tool/tool.h"

struct autoargs {
	char *text;             /* "name@items;name@items..." */
	size_t len, cap;
	size_t functions;
	struct fsym { Dwarf_Addr addr; const char *name; } *syms;   /* STT_FUNC by address: a gcc */
	size_t n_syms;                                              /* clone (f.isra.0) is not f */
	/* the spec of each name, in the order found: a name found again with
	 * other items (two static functions of one name in two files, which
	 * a spec by name cannot tell apart) gets none, not the first one's */
	struct named { char *name, *items; int ambiguous; } *done;
	size_t n_done, cap_done;
};

static int cmp_fsym(const void *x, const void *y)
{
	const struct fsym *a = x, *b = y;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* the function symbols of the file, sorted by address */
static void load_syms(struct autoargs *a, Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !(n = elf_strptr(e, sh.sh_link, sym.st_name)))
				continue;
			if (a->n_syms == cap) {
				cap = cap ? 2 * cap : 1024;
				a->syms = xrealloc(a->syms, cap * sizeof(*a->syms));
			}
			a->syms[a->n_syms++] = (struct fsym){ sym.st_value, n };
		}
	}
	qsort(a->syms, a->n_syms, sizeof(*a->syms), cmp_fsym);
}

/* the function symbol defined at addr, or NULL */
static const char *symbol_at(const struct autoargs *a, Dwarf_Addr addr)
{
	struct fsym key = { addr, NULL };
	const struct fsym *f = a->n_syms ? bsearch(&key, a->syms, a->n_syms, sizeof(key), cmp_fsym) : NULL;
	return f ? f->name : NULL;
}

/* name's spec (items, NUL-terminated): kept, or found again (the same:
 * nothing to do; other items: the name is ambiguous) */
static void add_spec(struct autoargs *a, const char *name, const char *items)
{
	for (size_t i = 0; i < a->n_done; i++)
		if (!strcmp(a->done[i].name, name)) {
			if (strcmp(a->done[i].items, items))
				a->done[i].ambiguous = 1;
			return;
		}
	if (a->n_done == a->cap_done) {
		a->cap_done = a->cap_done ? 2 * a->cap_done : 64;
		a->done = xrealloc(a->done, a->cap_done * sizeof(*a->done));
	}
	a->done[a->n_done++] = (struct named){ xstrdup(name), xstrdup(items), 0 };
}

static void put(struct autoargs *a, const char *s, size_t n)
{
	if (a->len + n + 1 > a->cap) {
		a->cap = (a->len + n + 1) * 2;
		a->text = xrealloc(a->text, a->cap);
	}
	memcpy(a->text + a->len, s, n);
	a->len += n;
	a->text[a->len] = 0;
}

/* the last type_of went through a typedef: a byte type named by a typedef
 * (uint8_t, Lua's lu_byte) is a small integer, plain char a character */
static int peeled_typedef;

/* strip typedefs and cv-qualifiers */
static int peel(Dwarf_Die *type)
{
	Dwarf_Attribute at;
	for (int i = 0; i < 64; i++) {
		int tag = dwarf_tag(type);
		if (tag == DW_TAG_typedef)
			peeled_typedef = 1;
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return tag;
		if (!dwarf_attr_integrate(type, DW_AT_type, &at) || !dwarf_formref_die(&at, type))
			return 0;   /* const void */
	}
	return -1;
}

static int type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute at;
	peeled_typedef = 0;
	if (!dwarf_attr_integrate(die, DW_AT_type, &at) || !dwarf_formref_die(&at, type))
		return 0;       /* void */
	return peel(type);
}

/* C_EMPTY: an empty struct or class by value takes no register and no
 * stack slot (x86-64 SysV: size 0 in C, a class of no data in C++) */
enum cls { C_NONE, C_INT, C_FP, C_STRUCT_REGS, C_STRUCT_MEM, C_UNSURE, C_EMPTY,
	   C_BYREF,      /* a class passed by hidden reference, returned in memory: a C_INT argument */
	   C_LDOUBLE,    /* long double: two stack words, returned in st(0) */
	   C_STRVIEW };  /* std::string_view by value: two integer registers */

/* libstdc++'s std::string and std::string_view, by the class's own name
 * (gcc and clang name them alike; clang may give only a declaration,
 * enough: the layout is libstdc++'s).  The old copy-on-write string
 * (_GLIBCXX_USE_CXX11_ABI=0, one pointer: 8 bytes) is not one of these. */
static int is_std_string(Dwarf_Die *type)
{
	const char *n = dwarf_diename(type);
	Dwarf_Word size;
	if (!n || strcmp(n, "basic_string<char, std::char_traits<char>, std::allocator<char> >"))
		return 0;
	return dwarf_aggregate_size(type, &size) || size == 32;
}

static int is_string_view(Dwarf_Die *type)
{
	const char *n = dwarf_diename(type);
	return n && !strcmp(n, "basic_string_view<char, std::char_traits<char> >");
}

/* declared by the user, not by the compiler: neither artificial (an
 * implicit member gcc describes because it was used) nor defaulted on its
 * first declaration ("= default" in the class; one defaulted outside it is
 * user-provided) */
static int user_provided(Dwarf_Die *fn)
{
	Dwarf_Attribute at;
	Dwarf_Word d = 0;
	if (dwarf_hasattr(fn, DW_AT_artificial))
		return 0;
	if (dwarf_formudata(dwarf_attr(fn, DW_AT_defaulted, &at), &d) == 0)
		return d != DW_DEFAULTED_in_class;
	return !dwarf_hasattr(fn, DW_AT_defaulted);
}

/* the class that a constructor's only parameter after this refers to
 * (const X &, X &&): it is a copy or move constructor when that class is
 * its own */
static int copy_or_move(Dwarf_Die *fn, Dwarf_Die *cls)
{
	Dwarf_Die p, t;
	int params = 0, tag, same = 0;
	const char *cn = dwarf_diename(cls), *fnn = dwarf_diename(fn), *lt;
	if (!cn || !fnn)
		return 0;
	lt = strchr(cn, '<');   /* function<int(int)>'s constructor is "function" */
	if (strlen(fnn) != (lt ? (size_t)(lt - cn) : strlen(cn)) || strncmp(fnn, cn, strlen(fnn)))
		return 0;
	if (dwarf_child(fn, &p))
		return 0;
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter || dwarf_hasattr(&p, DW_AT_artificial))
			continue;
		if (++params > 1)
			return 0;
		tag = type_of(&p, &t);
		if (tag != DW_TAG_reference_type && tag != DW_TAG_rvalue_reference_type)
			return 0;
		if (type_of(&t, &t) <= 0)
			return 0;
		const char *tn = dwarf_diename(&t);
		same = dwarf_dieoffset(&t) == dwarf_dieoffset(cls) || (tn && !strcmp(tn, cn));
	} while (dwarf_siblingof(&p, &p) == 0);
	return params == 1 && same;
}

/* A C++ class passed by hidden reference (and returned in memory), by the
 * Itanium C++ ABI's rule: one "non-trivial for the purposes of calls".
 * DW_AT_calling_convention says so (DWARF 5); where a compiler leaves it
 * out (gcc), the class has a copy or move constructor or a destructor of
 * its own (std::string's), a virtual function or base, or a base class or
 * data member that is such a class (a struct holding a std::string,
 * std::function through its base _Function_base).  1: by reference, 0: not,
 * -1: cannot tell (a base or member known only by its declaration). */
static int by_reference(Dwarf_Die *type, int depth)
{
	Dwarf_Attribute at;
	Dwarf_Word cc = 0;
	Dwarf_Die child, t;
	int unsure = 0;
	if (dwarf_formudata(dwarf_attr(type, DW_AT_calling_convention, &at), &cc) == 0)
		return cc == DW_CC_pass_by_reference;
	if (depth > 16 || dwarf_child(type, &child))
		return depth > 16 ? -1 : 0;
	do {
		int tag = dwarf_tag(&child), r, ttag;
		const char *n = dwarf_diename(&child);
		Dwarf_Word virt = 0;
		if (tag == DW_TAG_subprogram) {
			if (dwarf_formudata(dwarf_attr(&child, DW_AT_virtuality, &at), &virt) == 0 && virt)
				return 1;
			if (n && user_provided(&child) && (n[0] == '~' || copy_or_move(&child, type)))
				return 1;
			continue;
		}
		if (tag == DW_TAG_inheritance) {
			if (dwarf_formudata(dwarf_attr(&child, DW_AT_virtuality, &at), &virt) == 0 && virt)
				return 1;
		} else if (tag == DW_TAG_member && !dwarf_hasattr(&child, DW_AT_external) &&
			   !dwarf_hasattr(&child, DW_AT_declaration)) {
			if (n && !strncmp(n, "_vptr", 5) && dwarf_hasattr(&child, DW_AT_artificial))
				return 1;       /* gcc's vtable pointer */
		} else {
			continue;
		}
		ttag = type_of(&child, &t);
		for (int k = 0; ttag == DW_TAG_array_type && k < 8; k++)
			ttag = type_of(&t, &t);
		if (ttag != DW_TAG_structure_type && ttag != DW_TAG_class_type && ttag != DW_TAG_union_type)
			continue;
		if (dwarf_hasattr(&t, DW_AT_declaration) && !dwarf_hasattr(&t, DW_AT_calling_convention)) {
			unsure = 1;
			continue;
		}
		if ((r = by_reference(&t, depth + 1)) == 1)
			return 1;
		if (r < 0)
			unsure = 1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return unsure ? -1 : 0;
}

/* Classify a type; fmt gets the item's "/fmt" text, *regs the integer
 * registers a by-value struct takes. */
static enum cls classify(Dwarf_Die *type, int tag, char *fmt, size_t fmtlen, int *regs)
{
	Dwarf_Word size = 0, enc = 0;
	Dwarf_Attribute at;
	*regs = 1;
	if (tag <= 0)
		return C_NONE;
	dwarf_aggregate_size(type, &size);
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		Dwarf_Die pointee;
		int ptag = type_of(type, &pointee);
		if (tag == DW_TAG_pointer_type && ptag == DW_TAG_base_type && dwarf_formudata(dwarf_attr(&pointee, DW_AT_encoding, &at), &enc) == 0 &&
		    (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char))
			snprintf(fmt, fmtlen, "/s");
		else if ((ptag == DW_TAG_class_type || ptag == DW_TAG_structure_type) && is_std_string(&pointee))
			snprintf(fmt, fmtlen, "/t");    /* const std::string &, std::string * */
		else
			snprintf(fmt, fmtlen, "/p");
		return C_INT;
	}
	case DW_TAG_enumeration_type: {
		size_t o = (size_t)snprintf(fmt, fmtlen, "/e%u", size == 1 || size == 2 || size == 8 ? (unsigned)size * 8 : 32);
		Dwarf_Die child;
		if (dwarf_child(type, &child) == 0) {
			char names[512];
			size_t nl = 0;
			int ok = 1;
			do {
				Dwarf_Sword v;
				const char *en = dwarf_diename(&child);
				if (dwarf_tag(&child) != DW_TAG_enumerator || !en ||
				    dwarf_formsdata(dwarf_attr(&child, DW_AT_const_value, &at), &v)) {
					ok = 0;
					break;
				}
				int w = snprintf(names + nl, sizeof(names) - nl, "%s%s=%lld", nl ? "|" : "", en, (long long)v);
				if (w < 0 || (size_t)w >= sizeof(names) - nl) {
					ok = 0;
					break;
				}
				nl += (size_t)w;
			} while (dwarf_siblingof(&child, &child) == 0);
			if (ok && nl && o + nl + 3 < fmtlen)
				snprintf(fmt + o, fmtlen - o, "{%s}", names);
		}
		return C_INT;
	}
	case DW_TAG_base_type:
		if (dwarf_formudata(dwarf_attr(type, DW_AT_encoding, &at), &enc))
			return C_UNSURE;
		switch (enc) {
		case DW_ATE_boolean: snprintf(fmt, fmtlen, "/b"); return C_INT;
		case DW_ATE_signed_char:
		case DW_ATE_unsigned_char:
			if (peeled_typedef)
				snprintf(fmt, fmtlen, "/%c8", enc == DW_ATE_signed_char ? 'i' : 'u');
			else
				snprintf(fmt, fmtlen, "/c");
			return C_INT;
		case DW_ATE_signed:
		case DW_ATE_unsigned:
			if (size != 1 && size != 2 && size != 4 && size != 8)
				return C_UNSURE;   /* __int128 */
			snprintf(fmt, fmtlen, "/%c%u", enc == DW_ATE_signed ? 'i' : 'u', (unsigned)size * 8);
			return C_INT;
		case DW_ATE_UTF:        /* char8_t, char16_t, char32_t: the code, as a number */
			if (size != 1 && size != 2 && size != 4)
				return C_UNSURE;
			snprintf(fmt, fmtlen, "/u%u", (unsigned)size * 8);
			return C_INT;
		case DW_ATE_float:
			if (size == 16) {
				snprintf(fmt, fmtlen, "/f80");  /* long double: in memory, st(0) */
				return C_LDOUBLE;
			}
			if (size != 4 && size != 8)
				return C_UNSURE;
			snprintf(fmt, fmtlen, "/f%u", (unsigned)size * 8);
			return C_FP;
		default:
			return C_UNSURE;
		}
	case DW_TAG_unspecified_type: {
		/* std::nullptr_t: it takes a pointer's register, whose content
		 * means nothing (clang -O2 leaves it as it was): {...}, unread */
		const char *n = dwarf_diename(type);
		if (!n || strcmp(n, "decltype(nullptr)"))
			return C_UNSURE;
		return C_STRUCT_REGS;
	}
	case DW_TAG_ptr_to_member_type: {
		/* to a member function: two words (the function or its vtable
		 * offset, and the adjustment of this), in two registers as a
		 * small struct, shown as {...}; to a data member: its offset */
		Dwarf_Die to;
		if (type_of(type, &to) == DW_TAG_subroutine_type) {
			*regs = 2;
			return C_STRUCT_REGS;
		}
		snprintf(fmt, fmtlen, "/i64");
		return C_INT;
	}
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type: {
		snprintf(fmt, fmtlen, "/S");
		if (is_std_string(type)) {
			snprintf(fmt, fmtlen, "/t");    /* by hidden reference: its address */
			return C_BYREF;
		}
		if (is_string_view(type)) {
			snprintf(fmt, fmtlen, "/v");
			*regs = 2;
			return C_STRVIEW;
		}
		/* a C++ class with a non-trivial copy constructor or destructor
		 * (std::string) is passed by hidden reference: a pointer */
		int byref = by_reference(type, 0);
		if (byref > 0) {
			snprintf(fmt, fmtlen, "/p");
			return C_BYREF;
		}
		if (byref < 0 || dwarf_hasattr(type, DW_AT_declaration))
			return C_UNSURE;        /* its definition is not here: cannot place it */
		if (size > 16) {
			*regs = (int)((size + 7) / 8);  /* stack words */
			return C_STRUCT_MEM;
		}
		/* at most 16 bytes: integer registers only if no member is a float;
		 * a member that is not at a multiple of its size (packed) puts the
		 * whole struct in memory; no data member at all: nothing passed */
		Dwarf_Die child;
		int members = 0;
		if (dwarf_child(type, &child) == 0) {
			do {
				Dwarf_Die mt;
				int mtag;
				Dwarf_Word off = 0, msize = 0;
				if (dwarf_tag(&child) == DW_TAG_inheritance)
					return C_UNSURE;        /* a base class's data: not followed */
				if (dwarf_tag(&child) != DW_TAG_member || dwarf_hasattr(&child, DW_AT_external))
					continue;       /* a static member is not in the object */
				members++;
				mtag = type_of(&child, &mt);
				if (mtag > 0 && dwarf_aggregate_size(&mt, &msize) == 0 && msize &&
				    dwarf_formudata(dwarf_attr(&child, DW_AT_data_member_location, &at), &off) == 0 &&
				    off % msize && msize <= 8)
					return *regs = (int)((size + 7) / 8), C_STRUCT_MEM;
				if (mtag != DW_TAG_base_type && mtag != DW_TAG_pointer_type && mtag != DW_TAG_enumeration_type)
					return C_UNSURE;
				if (mtag == DW_TAG_base_type && dwarf_formudata(dwarf_attr(&mt, DW_AT_encoding, &at), &enc) == 0 &&
				    enc == DW_ATE_float)
					return C_UNSURE;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		if (!members)
			return C_EMPTY;
		*regs = size > 8 ? 2 : 1;
		return C_STRUCT_REGS;
	}
	default:
		return C_UNSURE;
	}
}

/* gcc puts the parameters of a function parameter pack (the a of
 * template <class... A> f(A... a, int last)) inside a
 * DW_TAG_GNU_formal_parameter_pack child of the function; clang lists them
 * with the others.  Each of them takes its register like any parameter:
 * child moves into the pack (outer keeps the pack's place), or past an
 * empty one.  0: child is the next DIE to look at, -1: there is none. */
static int enter_pack(Dwarf_Die *child, Dwarf_Die *outer, int *in_pack)
{
	Dwarf_Die first;
	while (!*in_pack && dwarf_tag(child) == DW_TAG_GNU_formal_parameter_pack) {
		if (dwarf_child(child, &first) == 0) {
			*outer = *child;
			*child = first;
			*in_pack = 1;
			return 0;
		}
		if (dwarf_siblingof(child, child))
			return -1;
	}
	return 0;
}

/* the function's next child, going into and out of parameter packs */
static int next_param(Dwarf_Die *child, Dwarf_Die *outer, int *in_pack)
{
	if (dwarf_siblingof(child, child) == 0)
		return enter_pack(child, outer, in_pack);
	if (!*in_pack)
		return -1;
	*in_pack = 0;
	*child = *outer;
	if (dwarf_siblingof(child, child))
		return -1;
	return enter_pack(child, outer, in_pack);
}

static void add_function(struct autoargs *a, Dwarf_Die *fn)
{
	Dwarf_Attribute at;
	Dwarf_Die type, child;
	const char *name = NULL;
	char items[4096], fmt[600];
	size_t il = 0;
	int n_int = 0, n_fp = 0, n_items = 0, regs, n_stack = 0;   /* n_stack: stack words used */
	Dwarf_Addr lo;

	/* code of its own: low_pc, an entry pc, or ranges (gcc -O2 splits a
	 * function into hot and cold parts, described by DW_AT_ranges) */
	if (dwarf_lowpc(fn, &lo) && dwarf_entrypc(fn, &lo)) {
		Dwarf_Addr base, end;
		if (dwarf_ranges(fn, 0, &base, &lo, &end) <= 0)
			return;
	}
	if (dwarf_attr_integrate(fn, DW_AT_linkage_name, &at) || dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &at))
		name = dwarf_formstring(&at);
	if (!name) {
		/* gcc gives no linkage name to a function of internal linkage:
		 * its bare name ("add" for (anonymous namespace)::Acc::add)
		 * would name another function; its symbol, when mangled, does not
		 * (a clone's symbol, _ZL1fi.isra.0, is not f's: the check below).
		 * A function the compiler made (artificial), not a clone, is
		 * named by its symbol too: gcc describes a coroutine's actor and
		 * destroy parts (_Z7counterPZ7counteriE17_Z7counteri.Frame.actor)
		 * as "counter" with a parameter frame_ptr, which would otherwise
		 * name, and lend frame_ptr to, the coroutine counter(int) */
		const char *sym = symbol_at(a, lo);
		int mangled = sym && sym[0] == '_' && sym[1] == 'Z';
		name = mangled && (!strchr(sym, '.') || dwarf_hasattr_integrate(fn, DW_AT_artificial)) ? sym
												: dwarf_diename(fn);
	}
	if (!name || strpbrk(name, "*?[;@"))
		return;
	/* a gcc clone (f.isra.0, f.part.0, f.constprop.0) is described by f's
	 * DWARF (its abstract origin) with f's parameters, which a clone whose
	 * signature changed does not take: no spec from it, and one spec per
	 * name (f's own) */
	if (dwarf_hasattr(fn, DW_AT_abstract_origin)) {
		const char *sym = symbol_at(a, lo);
		if (sym && strcmp(sym, name) && strchr(sym, '.'))
			return;
	}
	items[0] = 0;
	/* the return value first: a struct in memory moves the arguments */
	int rtag = type_of(fn, &type);
	enum cls rc = classify(&type, rtag, fmt, sizeof(fmt), &regs);
	char ret[640] = "";
	if (rc == C_STRUCT_MEM) {
		n_int = 1;
		snprintf(ret, sizeof(ret), "retval/S");
	} else if (rc == C_BYREF) {
		n_int = 1;      /* returned in memory: rdi has its address, rax gives it back */
		snprintf(ret, sizeof(ret), "retval%s", fmt);
	} else if (rc == C_INT || rc == C_FP || rc == C_STRUCT_REGS || rc == C_LDOUBLE || rc == C_STRVIEW) {
		snprintf(ret, sizeof(ret), "retval%s", rc == C_STRUCT_REGS ? "/S" : fmt);
	}
	Dwarf_Die outer;
	int in_pack = 0;
	if (dwarf_child(fn, &child) == 0 && enter_pack(&child, &outer, &in_pack) == 0) {
		do {
			int tag = dwarf_tag(&child);
			if (tag == DW_TAG_unspecified_parameters)
				break;
			if (tag != DW_TAG_formal_parameter)
				continue;
			if (n_items == FNT_ARGS_MAX - 1)
				break;
			int ptag = type_of(&child, &type);
			enum cls c = classify(&type, ptag, fmt, sizeof(fmt), &regs);
			const char *pname = dwarf_diename(&child);
			char item[700], nm[40] = "";
			if (pname && strlen(pname) < 32 && !strpbrk(pname, ",=@;/"))
				snprintf(nm, sizeof(nm), "%s=", pname);
			if (c == C_UNSURE || c == C_NONE)
				break;
			if (c == C_EMPTY) {
				snprintf(item, sizeof(item), "%sarg1/S", nm);   /* {...}, nothing read */
			} else if (c == C_STRUCT_MEM) {
				snprintf(item, sizeof(item), "%sarg1/S", nm);   /* position unused: not captured */
				n_stack += regs;
			} else if (c == C_LDOUBLE) {
				n_stack += n_stack & 1;         /* 16-byte aligned */
				if (7 + n_stack + 1 > FNT_ARG_STACK_MAX)
					break;
				snprintf(item, sizeof(item), "%sarg%d%s", nm, 7 + n_stack, fmt);
				n_stack += 2;
			} else if (c == C_STRVIEW) {
				if (n_int + 2 > 6)
					break;          /* on the stack: not followed */
				snprintf(item, sizeof(item), "%sarg%d%s", nm, n_int + 1, fmt);
				n_int += 2;
			} else if (c == C_STRUCT_REGS) {
				if (n_int + regs > 6)
					break;
				snprintf(item, sizeof(item), "%sarg%d/S", nm, n_int + 1);
				n_int += regs;
			} else if (c == C_FP) {
				if (n_fp == 8)
					break;
				snprintf(item, sizeof(item), "%sfparg%d%s", nm, ++n_fp, fmt);
			} else if (n_int < 6) {
				snprintf(item, sizeof(item), "%sarg%d%s", nm, ++n_int, fmt);
			} else {
				/* on the stack, after what went there before */
				if (7 + n_stack > FNT_ARG_STACK_MAX)
					break;
				snprintf(item, sizeof(item), "%sarg%d%s", nm, 7 + n_stack++, fmt);
			}
			size_t l = strlen(item);
			if (il + l + 2 >= sizeof(items))
				break;
			if (il)
				items[il++] = ',';
			memcpy(items + il, item, l + 1);
			il += l;
			n_items++;
		} while (next_param(&child, &outer, &in_pack) == 0);
	}
	if (ret[0]) {
		size_t l = strlen(ret);
		if (il + l + 2 < sizeof(items)) {
			if (il)
				items[il++] = ',';
			memcpy(items + il, ret, l + 1);
			il += l;
		}
	}
	if (!il)
		return;
	struct fnt_argspec check = { 0 };
	if (fnt_argspec_parse(items, il, &check))
		return;
	items[il] = 0;
	add_spec(a, name, items);
}

static void walk(struct autoargs *a, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;
	if (depth > 32 || dwarf_child(die, &child))
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram)
			add_function(a, &child);
		else if (tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type)
			walk(a, &child, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The specs for every function of the program at path with DWARF; NULL
 * (and a warning) when it has none.  *count gets the number of functions. */
char *autoargs_specs(const char *path, size_t *count)
{
	struct autoargs a = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Dwarf *dw;
	Dwarf_Off off = 0, next;
	size_t hsize;
	if (fd < 0)
		return NULL;
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		close(fd);
		return NULL;
	}
	load_syms(&a, dwarf_getelf(dw));
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu))
			walk(&a, &cu, 0);
		off = next;
	}
	for (size_t i = 0; i < a.n_done; i++) {
		if (!a.done[i].ambiguous) {
			if (a.len)
				put(&a, ";", 1);
			put(&a, a.done[i].name, strlen(a.done[i].name));
			put(&a, "@", 1);
			put(&a, a.done[i].items, strlen(a.done[i].items));
			a.functions++;
		}
		free(a.done[i].name);
		free(a.done[i].items);
	}
	free(a.done);
	free(a.syms);
	dwarf_end(dw);
	close(fd);
	*count = a.functions;
	return a.text;
}
