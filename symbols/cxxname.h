/*
 * cxxname.h - C++ names in the forms fntrace shows, from libiberty's
 * demangler tree.
 */
#ifndef FNT_CXXNAME_H
#define FNT_CXXNAME_H

enum cxxname_style {
	CXXNAME_FULL,      /* the whole signature: "int geo::Box<int>::area() const" */
	CXXNAME_SHORT,     /* without return type and parameters, standard library
	                      types as their usual names: "geo::Box<int>::area",
	                      "std::map<std::string, int>::operator[]" */
	CXXNAME_SIMPLE,    /* also without template arguments and ABI tags:
	                      "std::map::operator[]", "mkstr" (mkstr[abi:cxx11]) */
	CXXNAME_NAME,      /* without return type and parameters, nothing else
	                      changed (what CXXNAME_SHORT is before the library
	                      types are renamed; for tests and matching) */
	CXXNAME_SIG,       /* the whole signature without the return type that a
	                      template function's mangled name carries
	                      ("build<int>(int)", not "std::vector<int> build<int>(int)"):
	                      what globs are matched against, so that 'std::*'
	                      names the standard library's functions, not every
	                      template function returning one of its types */
};

/* The demangled form of an Itanium-mangled name ("_Z..."), malloc'd, or NULL
 * if it is not one (or memory ran out). */
char *cxxname_demangle(const char *mangled, enum cxxname_style style);
/* A compiler's copy of a function is named after it with a suffix from the
 * first '.': gcc's clones (_ZN1wL7computeEii.constprop.0, f.isra.0,
 * f.part.0), clang's (f.llvm.123, a coroutine's f.resume).  The name
 * without it (malloc'd), which globs also match so that -F w::compute
 * selects the clone gcc -O2 calls instead; NULL for a name without one. */
char *cxxname_unclone(const char *name);
/* Which of a class's constructors or destructors a mangled name is, which
 * every demangled form leaves out ("complete", "base", "allocating",
 * "deleting"...), or NULL for any other name. */
const char *cxxname_structor(const char *mangled);

#endif
