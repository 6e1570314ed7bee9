/*
 * cxxname.c - C++ names from the demangler's structure, not from its text.
 *
 * libiberty parses a mangled name into a tree of demangle_components; the
 * short name is that tree with the function's own type (return type and
 * parameter list) cut off at its TYPED_NAME node, printed by libiberty
 * again.  Nothing scans demangled text, so operators, template arguments
 * with spaces, local classes, lambdas and decltype return types need no
 * special cases: "bool operator!=<unsigned int>(...)" -> "operator!=<unsigned int>",
 * "outer(int)::Guard::~Guard()" -> "outer(int)::Guard::~Guard".
 * The short style then renames the standard library's spelled-out types in
 * the tree (std::__cxx11::basic_string<char, ...> -> std::string, default
 * allocator/char_traits/less/hash/equal_to/default_delete arguments dropped);
 * the simple style drops every template argument list instead.
 *
 * The tree is rewritten in place: libiberty shares one node for every
 * substitution, so a rename reaches every use at once.  Walks are bounded
 * (depth and node count) because the tree is a DAG of unbounded fan-in.
 */
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "symbols/cxxname.h"

#define OPTS (DMGL_PARAMS | DMGL_ANSI)
#define MAX_DEPTH 200

typedef struct demangle_component comp;

static int is_name(const comp *c, const char *s)
{
	size_t n = strlen(s);
	return c && c->type == DEMANGLE_COMPONENT_NAME && (size_t)c->u.s_name.len == n &&
	       !memcmp(c->u.s_name.s, s, n);
}

/* the node's two children when it has them (leaves and the nodes whose
 * union member is not s_binary answer 0) */
static int children(comp *c, comp ***l, comp ***r)
{
	switch (c->type) {
	case DEMANGLE_COMPONENT_QUAL_NAME:
	case DEMANGLE_COMPONENT_LOCAL_NAME:
	case DEMANGLE_COMPONENT_TYPED_NAME:
	case DEMANGLE_COMPONENT_TEMPLATE:
	case DEMANGLE_COMPONENT_TEMPLATE_ARGLIST:
	case DEMANGLE_COMPONENT_ARGLIST:
	case DEMANGLE_COMPONENT_POINTER:
	case DEMANGLE_COMPONENT_REFERENCE:
	case DEMANGLE_COMPONENT_RVALUE_REFERENCE:
	case DEMANGLE_COMPONENT_CONST:
	case DEMANGLE_COMPONENT_VOLATILE:
	case DEMANGLE_COMPONENT_RESTRICT:
	case DEMANGLE_COMPONENT_CONST_THIS:
	case DEMANGLE_COMPONENT_VOLATILE_THIS:
	case DEMANGLE_COMPONENT_RESTRICT_THIS:
	case DEMANGLE_COMPONENT_REFERENCE_THIS:
	case DEMANGLE_COMPONENT_RVALUE_REFERENCE_THIS:
	case DEMANGLE_COMPONENT_FUNCTION_TYPE:
	case DEMANGLE_COMPONENT_ARRAY_TYPE:
	case DEMANGLE_COMPONENT_PTRMEM_TYPE:
	case DEMANGLE_COMPONENT_PACK_EXPANSION:
	case DEMANGLE_COMPONENT_TAGGED_NAME:
	case DEMANGLE_COMPONENT_CLONE:
	case DEMANGLE_COMPONENT_THUNK:
	case DEMANGLE_COMPONENT_VIRTUAL_THUNK:
	case DEMANGLE_COMPONENT_COVARIANT_THUNK:
	case DEMANGLE_COMPONENT_TRANSACTION_CLONE:
	case DEMANGLE_COMPONENT_NONTRANSACTION_CLONE:
	case DEMANGLE_COMPONENT_HIDDEN_ALIAS:
	case DEMANGLE_COMPONENT_CONVERSION:
	case DEMANGLE_COMPONENT_VTABLE:
	case DEMANGLE_COMPONENT_VTT:
	case DEMANGLE_COMPONENT_TYPEINFO:
	case DEMANGLE_COMPONENT_TYPEINFO_NAME:
	case DEMANGLE_COMPONENT_TYPEINFO_FN:
	case DEMANGLE_COMPONENT_GUARD:
	case DEMANGLE_COMPONENT_TLS_INIT:
	case DEMANGLE_COMPONENT_TLS_WRAPPER:
	case DEMANGLE_COMPONENT_REFTEMP:
		*l = &c->u.s_binary.left;
		*r = &c->u.s_binary.right;
		return 1;
	default:
		return 0;
	}
}

static int this_qual(const comp *c)
{
	switch (c->type) {
	case DEMANGLE_COMPONENT_CONST_THIS:
	case DEMANGLE_COMPONENT_VOLATILE_THIS:
	case DEMANGLE_COMPONENT_RESTRICT_THIS:
	case DEMANGLE_COMPONENT_REFERENCE_THIS:
	case DEMANGLE_COMPONENT_RVALUE_REFERENCE_THIS:
		return 1;
	default:
		return 0;
	}
}

/* "area() const", "{lambda(int)#1}::operator()() const": the qualifiers of
 * this belong to the signature; they sit on the last part of the name */
static void strip_this(comp *c)
{
	for (int d = 0; c && d < MAX_DEPTH; d++) {
		while (this_qual(c) && c->u.s_binary.left)
			*c = *c->u.s_binary.left;
		if (c->type != DEMANGLE_COMPONENT_QUAL_NAME && c->type != DEMANGLE_COMPONENT_LOCAL_NAME)
			return;
		c = c->u.s_binary.right;
	}
}

/* Cut the function's own type off: the first TYPED_NAME on the way down
 * through clones and thunks becomes its name. */
static int drop_signature(comp *c)
{
	for (int d = 0; c && d < MAX_DEPTH; d++) {
		switch (c->type) {
		case DEMANGLE_COMPONENT_TYPED_NAME:
			if (!c->u.s_binary.left)
				return -1;
			*c = *c->u.s_binary.left;
			strip_this(c);
			return 0;
		case DEMANGLE_COMPONENT_CLONE:
		case DEMANGLE_COMPONENT_THUNK:
		case DEMANGLE_COMPONENT_VIRTUAL_THUNK:
		case DEMANGLE_COMPONENT_COVARIANT_THUNK:
		case DEMANGLE_COMPONENT_TRANSACTION_CLONE:
		case DEMANGLE_COMPONENT_NONTRANSACTION_CLONE:
		case DEMANGLE_COMPONENT_HIDDEN_ALIAS:
			c = c->u.s_binary.left;
			break;
		default:
			return 0;       /* not a function: a variable, a special name */
		}
	}
	return -1;
}

/* "std" (a name, or the St abbreviation) */
static int is_std(const comp *c)
{
	return is_name(c, "std") || (c && c->type == DEMANGLE_COMPONENT_SUB_STD &&
				      c->u.s_string.len == 3 && !memcmp(c->u.s_string.string, "std", 3));
}

/* "std", "std::__cxx11", "std::__debug"... */
static int in_std(const comp *scope)
{
	const comp *r;

	if (is_std(scope))
		return 1;
	return scope && scope->type == DEMANGLE_COMPONENT_QUAL_NAME && is_std(scope->u.s_binary.left) &&
	       (r = scope->u.s_binary.right) && r->type == DEMANGLE_COMPONENT_NAME &&
	       r->u.s_name.len > 2 && r->u.s_name.s[0] == '_';
}

/* Is c the std:: entity named m ("allocator")?  std::X, std::__cxx11::X,
 * or one of the abbreviations (Sa = std::allocator, Sb = std::basic_string) */
static int std_is(const comp *c, const char *m)
{
	size_t n = strlen(m);

	if (!c)
		return 0;
	if (c->type == DEMANGLE_COMPONENT_SUB_STD)
		return (size_t)c->u.s_string.len == n + 5 && !memcmp(c->u.s_string.string, "std::", 5) &&
		       !memcmp(c->u.s_string.string + 5, m, n);
	return c->type == DEMANGLE_COMPONENT_QUAL_NAME && in_std(c->u.s_binary.left) &&
	       is_name(c->u.s_binary.right, m);
}

/* c as printed (malloc'd), or NULL */
static char *printed(const comp *c)
{
	size_t size;
	return c ? cplus_demangle_print(OPTS, (comp *)c, 64, &size) : NULL;
}

/* whether x prints as the text of y, with `suffix` after it */
static int same_text(const comp *x, const comp *y, const char *suffix)
{
	char *a = printed(x), *b = printed(y);
	size_t n = b ? strlen(b) : 0;
	int same = a && b && !strncmp(a, b, n) && !strcmp(a + n, suffix);
	free(a);
	free(b);
	return same;
}

/* the only argument of template a, or NULL */
static const comp *only_arg(const comp *a)
{
	const comp *l = a->u.s_binary.right;
	return l && l->type == DEMANGLE_COMPONENT_TEMPLATE_ARGLIST && !l->u.s_binary.right ? l->u.s_binary.left : NULL;
}

/* a std:: template argument that only restates its default, given the
 * template's first two arguments: less<K>, hash<K>, equal_to<K>,
 * char_traits<C>, default_delete<T>, allocator<T> or, after a map's key
 * and value, allocator<pair<K const, V>>.  std::less<void> in a map of
 * strings, or std::less<long> in a set of ints, is no default: kept. */
static int default_arg(const comp *a, const comp *first, const comp *second)
{
	static const char *const defaults[] = {
		"allocator", "char_traits", "less", "hash", "equal_to", "default_delete",
	};
	const comp *x, *p;
	size_t i;

	if (!a || a->type != DEMANGLE_COMPONENT_TEMPLATE || !(x = only_arg(a)))
		return 0;
	for (i = 0; i < sizeof(defaults) / sizeof(*defaults); i++)
		if (std_is(a->u.s_binary.left, defaults[i]))
			break;
	if (i == sizeof(defaults) / sizeof(*defaults))
		return 0;
	if (same_text(x, first, ""))
		return 1;
	/* allocator<pair<K const, V>> */
	if (i || !second || x->type != DEMANGLE_COMPONENT_TEMPLATE || !std_is(x->u.s_binary.left, "pair"))
		return 0;
	p = x->u.s_binary.right;
	return p && p->type == DEMANGLE_COMPONENT_TEMPLATE_ARGLIST && (p = p->u.s_binary.right) != NULL &&
	       p->type == DEMANGLE_COMPONENT_TEMPLATE_ARGLIST && !p->u.s_binary.right &&
	       same_text(x->u.s_binary.right->u.s_binary.left, first, " const") &&
	       same_text(p->u.s_binary.left, second, "");
}

/* a template of the std namespace */
static int std_template(const comp *name)
{
	return name && ((name->type == DEMANGLE_COMPONENT_SUB_STD && name->u.s_string.len > 5 &&
			 !memcmp(name->u.s_string.string, "std::", 5)) ||
			(name->type == DEMANGLE_COMPONENT_QUAL_NAME && in_std(name->u.s_binary.left)));
}

static const char *const string_names[][2] = {
	{ "char8_t", "std::u8string" },
	{ "char16_t", "std::u16string" }, { "char32_t", "std::u32string" },
};

/* std::basic_X<char> -> std::X, std::basic_X<wchar_t> -> std::wX: the
 * typedefs the library declares */
static const char *const basic_names[][3] = {
	{ "basic_string", "std::string", "std::wstring" },
	{ "basic_string_view", "std::string_view", "std::wstring_view" },
	{ "basic_ios", "std::ios", "std::wios" },
	{ "basic_streambuf", "std::streambuf", "std::wstreambuf" },
	{ "basic_istream", "std::istream", "std::wistream" },
	{ "basic_ostream", "std::ostream", "std::wostream" },
	{ "basic_iostream", "std::iostream", "std::wiostream" },
	{ "basic_stringbuf", "std::stringbuf", "std::wstringbuf" },
	{ "basic_istringstream", "std::istringstream", "std::wistringstream" },
	{ "basic_ostringstream", "std::ostringstream", "std::wostringstream" },
	{ "basic_stringstream", "std::stringstream", "std::wstringstream" },
	{ "basic_filebuf", "std::filebuf", "std::wfilebuf" },
	{ "basic_ifstream", "std::ifstream", "std::wifstream" },
	{ "basic_ofstream", "std::ofstream", "std::wofstream" },
	{ "basic_fstream", "std::fstream", "std::wfstream" },
};

/* libiberty's builtin type descriptions are opaque: compare with the one
 * it fills in for the name */
static int builtin_is(const comp *c, const char *name)
{
	comp b;

	return cplus_demangle_fill_builtin_type(&b, name) && b.u.s_builtin.type == c->u.s_builtin.type;
}

static void rename_basic(comp *c, const comp *name, const comp *args)
{
	const comp *ch = args->u.s_binary.left;
	const char *to = NULL;
	int col;

	if (args->u.s_binary.right || !ch || ch->type != DEMANGLE_COMPONENT_BUILTIN_TYPE)
		return;
	col = builtin_is(ch, "char") ? 1 : builtin_is(ch, "wchar_t") ? 2 : 0;
	for (size_t i = 0; i < sizeof(basic_names) / sizeof(*basic_names) && !to; i++)
		if (std_is(name, basic_names[i][0]))
			to = col ? basic_names[i][col] : NULL;
	if (!to && std_is(name, "basic_string"))
		for (size_t i = 0; i < sizeof(string_names) / sizeof(*string_names); i++)
			if (builtin_is(ch, string_names[i][0]))
				to = string_names[i][1];
	if (!to)
		return;
	c->type = DEMANGLE_COMPONENT_NAME;
	c->u.s_name.s = to;
	c->u.s_name.len = (int)strlen(to);
}

/* libiberty writes Ss, Si, So, Sd as their whole expansion before a
 * constructor or destructor ("std::basic_string<char, std::char_traits<char>,
 * std::allocator<char> >::basic_string") */
static void rename_sub_std(comp *c)
{
	static const char *const subs[][2] = {
		{ "std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string" },
		{ "std::basic_istream<char, std::char_traits<char> >", "std::istream" },
		{ "std::basic_ostream<char, std::char_traits<char> >", "std::ostream" },
		{ "std::basic_iostream<char, std::char_traits<char> >", "std::iostream" },
	};

	for (size_t i = 0; i < sizeof(subs) / sizeof(*subs); i++)
		if ((size_t)c->u.s_string.len == strlen(subs[i][0]) &&
		    !memcmp(c->u.s_string.string, subs[i][0], (size_t)c->u.s_string.len)) {
			c->u.s_string.string = subs[i][1];
			c->u.s_string.len = (int)strlen(subs[i][1]);
		}
}

/* fn: c names a function (the whole name, or the function a local name is
 * in): its own template arguments are deduced or written, never defaults,
 * so std::min<int, std::less<int> > keeps its comparator (it is not the
 * std::min<int> without one) */
static void std_names(comp *c, int fn, int depth, unsigned *budget)
{
	comp **l, **r;

	if (!c || depth > MAX_DEPTH || !*budget)
		return;
	--*budget;
	if (c->type == DEMANGLE_COMPONENT_QUAL_NAME && c->u.s_binary.left &&
	    c->u.s_binary.left->type == DEMANGLE_COMPONENT_QUAL_NAME && in_std(c->u.s_binary.left) &&
	    is_name(c->u.s_binary.left->u.s_binary.right, "__cxx11"))
		c->u.s_binary.left = c->u.s_binary.left->u.s_binary.left;      /* std::__cxx11:: -> std:: */
	if (c->type == DEMANGLE_COMPONENT_LAMBDA) {
		std_names(c->u.s_unary_num.sub, 0, depth + 1, budget);
		return;
	}
	if (c->type == DEMANGLE_COMPONENT_SUB_STD)
		rename_sub_std(c);
	if (!children(c, &l, &r))
		return;
	switch (c->type) {
	case DEMANGLE_COMPONENT_TYPED_NAME:     /* a function's name and its type */
		std_names(*l, 1, depth + 1, budget);
		std_names(*r, 0, depth + 1, budget);
		break;
	case DEMANGLE_COMPONENT_QUAL_NAME:      /* the scope is no function; the last part may be */
	case DEMANGLE_COMPONENT_LOCAL_NAME:     /* the function it is in is a TYPED_NAME */
		std_names(*l, 0, depth + 1, budget);
		std_names(*r, fn, depth + 1, budget);
		break;
	case DEMANGLE_COMPONENT_CLONE:
	case DEMANGLE_COMPONENT_CONST_THIS:
	case DEMANGLE_COMPONENT_VOLATILE_THIS:
	case DEMANGLE_COMPONENT_RESTRICT_THIS:
	case DEMANGLE_COMPONENT_REFERENCE_THIS:
	case DEMANGLE_COMPONENT_RVALUE_REFERENCE_THIS:
		std_names(*l, fn, depth + 1, budget);
		std_names(*r, 0, depth + 1, budget);
		break;
	default:
		std_names(*l, 0, depth + 1, budget);
		std_names(*r, 0, depth + 1, budget);
		break;
	}
	if (c->type == DEMANGLE_COMPONENT_TEMPLATE && !fn && std_template(*l) && *r) {
		/* drop trailing default arguments, never the first */
		comp *keep = NULL;
		const comp *first = (*r)->u.s_binary.left, *second = NULL;
		if ((*r)->u.s_binary.right && (*r)->u.s_binary.right->type == DEMANGLE_COMPONENT_TEMPLATE_ARGLIST)
			second = (*r)->u.s_binary.right->u.s_binary.left;
		for (comp *a = *r; a && a->type == DEMANGLE_COMPONENT_TEMPLATE_ARGLIST; a = a->u.s_binary.right)
			if (a == *r || !default_arg(a->u.s_binary.left, first, second))
				keep = a;
		if (keep && keep->u.s_binary.right) {
			/* the arglist node may be shared by another template
			 * with the same arguments: only cut a suffix that is
			 * all defaults, which is the same rule there */
			keep->u.s_binary.right = NULL;
		}
		rename_basic(c, *l, *r);
	}
}

/* drop template argument lists, ABI tags ("mkstr[abi:cxx11]" is mkstr, as
 * it is in the source), and the enclosing function's parameters of a local
 * name */
static void simple_names(comp *c, int depth, unsigned *budget)
{
	comp **l, **r;

	if (!c || depth > MAX_DEPTH || !*budget)
		return;
	--*budget;
	while ((c->type == DEMANGLE_COMPONENT_TEMPLATE || c->type == DEMANGLE_COMPONENT_TYPED_NAME ||
		c->type == DEMANGLE_COMPONENT_TAGGED_NAME) && c->u.s_binary.left) {
		int typed = c->type == DEMANGLE_COMPONENT_TYPED_NAME;
		*c = *c->u.s_binary.left;
		if (typed)      /* an enclosing function's "const" goes with its parameters */
			strip_this(c);
	}
	if (c->type == DEMANGLE_COMPONENT_SUB_STD) {       /* "std::basic_string<char, ...>" */
		const char *lt = memchr(c->u.s_string.string, '<', (size_t)c->u.s_string.len);
		if (lt)
			c->u.s_string.len = (int)(lt - c->u.s_string.string);
	}
	if (!children(c, &l, &r))
		return;
	simple_names(*l, depth + 1, budget);
	if (c->type != DEMANGLE_COMPONENT_CLONE)
		simple_names(*r, depth + 1, budget);
}

char *cxxname_unclone(const char *name)
{
	const char *dot = name ? strchr(name, '.') : NULL;
	char *out;

	/* ".constprop.0", ".isra.0", ".part.0", ".lto_priv.0", ".llvm.123",
	 * ".resume": not "libx.so+0x1139" (a function without a symbol) */
	if (!dot || dot == name || !dot[1] || dot[strspn(dot, ".abcdefghijklmnopqrstuvwxyz0123456789_")])
		return NULL;
	out = malloc((size_t)(dot - name) + 1);
	if (out) {
		memcpy(out, name, (size_t)(dot - name));
		out[dot - name] = 0;
	}
	return out;
}

const char *cxxname_structor(const char *mangled)
{
	static const char *const ctors[] = { NULL, "complete", "base", "allocating", "unified", "group" };
	static const char *const dtors[] = { NULL, "deleting", "complete", "base", "unified", "group" };
	unsigned k;

	if (!mangled || mangled[0] != '_' || mangled[1] != 'Z')
		return NULL;
	if ((k = (unsigned)is_gnu_v3_mangled_ctor(mangled)) != 0)
		return k < sizeof(ctors) / sizeof(*ctors) ? ctors[k] : NULL;
	if ((k = (unsigned)is_gnu_v3_mangled_dtor(mangled)) != 0)
		return k < sizeof(dtors) / sizeof(*dtors) ? dtors[k] : NULL;
	return NULL;
}

char *cxxname_demangle(const char *mangled, enum cxxname_style style)
{
	void *mem = NULL;
	comp *tree;
	char *out = NULL;
	size_t size;
	unsigned budget = 100000;

	if (!mangled || mangled[0] != '_' || mangled[1] != 'Z')
		return NULL;
	int whole = style == CXXNAME_FULL || style == CXXNAME_SIG;
	int opts = style == CXXNAME_SIG ? OPTS | DMGL_RET_DROP : OPTS;
	/* The tree is libiberty's first parse only.  Its text demangler
	 * parses again when that one fails on the 'sr' that clang writes for
	 * a namespace-qualified name in a template argument expression
	 * (lib::wide<T>::value in an enable_if return type:
	 * "sr3lib4wideIT_EE5valueE"); such a name gets that text, without
	 * the tree's rewrites. */
	tree = cplus_demangle_v3_components(mangled, OPTS, &mem);
	if (!tree)
		goto fallback;
	if (!whole && drop_signature(tree))
		goto fallback;
	if (style == CXXNAME_SHORT)
		std_names(tree, 1, 0, &budget);
	else if (style == CXXNAME_SIMPLE)
		simple_names(tree, 0, &budget);
	out = cplus_demangle_print(opts, tree, (int)strlen(mangled) * 2, &size);
fallback:
	free(mem);
	if (!out && !whole)
		out = cplus_demangle_v3(mangled, DMGL_ANSI);     /* without parameters */
	if (!out && whole)
		out = cplus_demangle_v3(mangled, opts);
	return out;
}
