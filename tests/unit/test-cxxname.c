/*
 * test-cxxname.c - C++ names (symbols/cxxname.c) of every function that
 * libstdc++.so.6 defines, read from its .dynsym with libelf: some 5,000 real
 * names with operators, templates, local classes, lambdas, ABI tags and
 * decltype return types.  For each one:
 *  - the name without signature is the full name with only the parameter
 *    list (and its qualifiers) and the return type removed: it occurs in the
 *    full name after nothing or a return type and a space, followed by "("
 *    or the end; and it equals libiberty's own rendering without parameters
 *    (which keeps them for thunks and clones);
 *  - no form is empty or a fragment: brackets balance (outside operator
 *    names), and nothing starts or ends with a separator;
 *  - the short form never spells out std::__cxx11::basic_string<char, ...>.
 * A few hand-picked names check the exact short and simple forms.
 * Run from anywhere: build/tests/test-cxxname.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libiberty/demangle.h>
#include "symbols/cxxname.h"

#include "check.h"

static const char *const libs[] = {
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib64/libstdc++.so.6", "/usr/lib/libstdc++.so.6",
};

/* ( ) and [ ] balance; < > too when no operator is named */
static int balanced(const char *s)
{
	int paren = 0, angle = 0;
	int op = strstr(s, "operator") != NULL;

	for (const char *p = s; *p; p++) {
		paren += *p == '(' || *p == '[';
		paren -= *p == ')' || *p == ']';
		angle += *p == '<';
		angle -= *p == '>';
		if (paren < 0 || (!op && angle < 0))
			return 0;
	}
	return paren == 0 && (op || angle == 0);
}

static int fragment(const char *s)
{
	size_t n = strlen(s);
	return !n || strchr(" ,>:)", s[0]) || s[n - 1] == ' ' || s[n - 1] == ',' || s[n - 1] == ':' || !balanced(s);
}

/* name occurs in full after nothing or "return-type ", then "(" or the end */
static int is_name_of(const char *name, const char *full)
{
	size_t n = strlen(name);

	for (const char *p = strstr(full, name); p; p = strstr(p + 1, name))
		if ((p == full || p[-1] == ' ') && (p[n] == '(' || p[n] == 0 || !strncmp(p + n, " [clone", 7)))
			return 1;
	return 0;
}

static void one(const char *mangled, size_t *n_checked)
{
	char *full = cxxname_demangle(mangled, CXXNAME_FULL);
	char *name, *shortn, *simple, *ref;

	if (!full)
		return;         /* not a name libiberty can demangle */
	name = cxxname_demangle(mangled, CXXNAME_NAME);
	shortn = cxxname_demangle(mangled, CXXNAME_SHORT);
	simple = cxxname_demangle(mangled, CXXNAME_SIMPLE);
	ref = cplus_demangle_v3(mangled, DMGL_ANSI);
	(*n_checked)++;
	if (CHECK(name && shortn && simple, "%s: a form is missing", mangled)) {
		CHECK(!fragment(full), "%s: full '%s' is a fragment", mangled, full);
		CHECK(!fragment(name), "%s: name '%s' is a fragment", mangled, name);
		CHECK(!fragment(shortn), "%s: short '%s' is a fragment", mangled, shortn);
		CHECK(!fragment(simple), "%s: simple '%s' is a fragment", mangled, simple);
		CHECK(is_name_of(name, full), "%s: '%s' is not '%s' without its signature", mangled, name, full);
		/* libiberty keeps the parameters of thunks and clones */
		CHECK(!ref || !strcmp(ref, name) || (!strncmp(ref, name, strlen(name)) && ref[strlen(name)] == '('),
		      "%s: '%s', libiberty says '%s'", mangled, name, ref);
		CHECK(!strstr(shortn, "basic_string<char, std::char_traits<char>"), "%s: short '%s' spells out std::string",
		      mangled, shortn);
		CHECK(!strchr(simple, '<') || strstr(simple, "operator<") || strstr(simple, "operator>") ||
			      strstr(simple, "operator-"),
		      "%s: simple '%s' has template arguments", mangled, simple);
	}
	free(full);
	free(name);
	free(shortn);
	free(simple);
	free(ref);
}

static void exact(const char *mangled, enum cxxname_style st, const char *want)
{
	char *got = cxxname_demangle(mangled, st);
	CHECK(got && !strcmp(got, want), "%s (style %d): '%s', want '%s'", mangled, st, got ? got : "(null)", want);
	free(got);
}

int main(void)
{
	size_t n_checked = 0, n_syms = 0;
	int fd = -1;
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;

	exact("_ZN3geoneIjEEbRKNS_3BoxIT_EES5_", CXXNAME_SHORT, "geo::operator!=<unsigned int>");
	exact("_ZN3geoeqIilEEbNS_1PET0_", CXXNAME_SHORT, "geo::operator==<int, long>");
	exact("_ZZ5outeriEN5GuardD2Ev", CXXNAME_SHORT, "outer(int)::Guard::~Guard");
	exact("_ZZ5outeriEN5GuardD2Ev", CXXNAME_SIMPLE, "outer::Guard::~Guard");
	exact("_ZZ5outeriENKUliE_clEi", CXXNAME_SHORT, "outer(int)::{lambda(int)#1}::operator()");
	/* a lambda in a lambda: the enclosing operator()'s "const" goes with its parameters */
	exact("_ZZZ4mainENKUliE_clEiENKUliE_clEi", CXXNAME_SIMPLE,
	      "main::{lambda(int)#1}::operator()::{lambda(int)#1}::operator()");
	exact("_Z5plus1IiEDTplfp_Li1EET_", CXXNAME_SHORT, "plus1<int>");
	exact("_Z5identIiEDcT_", CXXNAME_SHORT, "ident<int>");
	exact("_Z5identIiEDcT_", CXXNAME_FULL, "decltype(auto) ident<int>(int)");
	exact("_ZNK3geo3BoxIiE4areaEv", CXXNAME_SHORT, "geo::Box<int>::area");
	exact("_ZNK3geo3BoxIiE4areaEv", CXXNAME_SIMPLE, "geo::Box::area");
	exact("_ZNK3geo3BoxIiE4areaEv", CXXNAME_FULL, "geo::Box<int>::area() const");
	/* the signature globs match: a template function's return type left out */
	exact("_Z5buildIiESt6vectorIT_SaIS1_EES1_", CXXNAME_SIG, "build<int>(int)");
	exact("_Z4makeIiEN3geo3BoxIT_EES2_", CXXNAME_SIG, "make<int>(int)");
	exact("_Z4makeIiEN3geo3BoxIT_EES2_", CXXNAME_FULL, "geo::Box<int> make<int>(int)");
	exact("_Z5identIiEDcT_", CXXNAME_SIG, "ident<int>(int)");
	exact("_ZNK3geo3BoxIiE4areaEv", CXXNAME_SIG, "geo::Box<int>::area() const");
	exact("_ZNSt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEiSt4lessIS5_ESaISt4pairIKS5_iEEEixEOS5_",
	      CXXNAME_SHORT, "std::map<std::string, int>::operator[]");
	exact("_ZNSt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEiSt4lessIS5_ESaISt4pairIKS5_iEEEixEOS5_",
	      CXXNAME_SIMPLE, "std::map::operator[]");
	exact("_ZNSt6vectorIiSaIiEE9push_backERKi", CXXNAME_SHORT, "std::vector<int>::push_back");
	/* a trailing argument goes only when it restates its default: less<K>,
	 * hash<K>, allocator<pair<K const, V>>; not std::less<void> in a map of
	 * strings, nor std::less<long> in a set of ints */
	exact("_Z3useISt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEiSt4lessIS6_ESaISt4pairIKS6_iEEEEmRT_",
	      CXXNAME_SHORT, "use<std::map<std::string, int> >");
	exact("_Z3useISt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEiSt4lessIvESaISt4pairIKS6_iEEEEmRT_",
	      CXXNAME_SHORT, "use<std::map<std::string, int, std::less<void> > >");
	exact("_Z3useISt3setIiSt4lessIiESaIiEEEmRT_", CXXNAME_SHORT, "use<std::set<int> >");
	exact("_Z3useISt3setIiSt4lessIlESaIiEEEmRT_", CXXNAME_SHORT, "use<std::set<int, std::less<long> > >");
	exact("_Z3useISt13unordered_mapIiiSt4hashIiESt8equal_toIiESaISt4pairIKiiEEEEmRT_", CXXNAME_SHORT,
	      "use<std::unordered_map<int, int> >");
	exact("_Z3useISt13unordered_mapIiiSt4hashIlESt8equal_toIiESaISt4pairIKiiEEEEmRT_", CXXNAME_SHORT,
	      "use<std::unordered_map<int, int, std::hash<long> > >");
	/* the simple form has no ABI tag */
	exact("_Z2mkB5cxx11i", CXXNAME_SIMPLE, "mk");
	exact("_Z2mkB5cxx11i", CXXNAME_SHORT, "mk[abi:cxx11]");
	exact("_ZNK3TwoB2t11mEv", CXXNAME_SIMPLE, "Two::m");
	/* a function template's own arguments are never defaults */
	exact("_ZSt3minIiSt4lessIiEERKT_S4_S4_T0_", CXXNAME_SHORT, "std::min<int, std::less<int> >");
	exact("_ZNSt6vectorIiSaIiEE17_M_realloc_insertIJRKiEEEvN9__gnu_cxx17__normal_iteratorIPiS1_EEDpOT_",
	      CXXNAME_SHORT, "std::vector<int>::_M_realloc_insert<int const&>");
	/* clang's "sr3lib4wideIT_EE5valueE", which only libiberty's second
	 * (text) parse reads: its text, not NULL */
	exact("_ZN3lib5twiceIlEENSt9enable_ifIXsr3lib4wideIT_EE5valueES2_E4typeES2_", CXXNAME_SHORT,
	      "lib::twice<long>");
	exact("_ZN3lib5twiceIlEENSt9enable_ifIXsr3lib4wideIT_EE5valueES2_E4typeES2_", CXXNAME_SIG,
	      "lib::twice<long>(long)");
	exact("_ZN3lib5twiceIlEENSt9enable_ifIXsr3lib4wideIT_EE5valueES2_E4typeES2_", CXXNAME_FULL,
	      "std::enable_if<lib::wide<long>::value, long>::type lib::twice<long>(long)");
	CHECK(cxxname_demangle("main", CXXNAME_SHORT) == NULL, "a C name is not demangled");

	elf_version(EV_CURRENT);
	for (size_t i = 0; i < sizeof(libs) / sizeof(*libs) && fd < 0; i++)
		fd = open(libs[i], O_RDONLY);
	if (!CHECK(fd >= 0, "no libstdc++.so.6 found"))
		goto out;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || strncmp(name, "_Z", 2))
				continue;
			n_syms++;
			one(name, &n_checked);
		}
	}
	CHECK(n_checked > 1000 && n_checked * 100 >= n_syms * 99, "%zu of %zu libstdc++ names demangled", n_checked,
	      n_syms);
	printf("%zu libstdc++ names checked\n", n_checked);
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
