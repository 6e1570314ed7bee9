/*
 * needed.c - the shared libraries a program links against, found as the
 * dynamic linker would find them (DT_RPATH without DT_RUNPATH, then
 * LD_LIBRARY_PATH, DT_RUNPATH, then the system directories), read from the
 * ELF file only: nothing of the program runs (ldd runs the loader on it).
 * `record` uses it to see -pg -mfentry and patchable builds in libraries,
 * for -A/-R and --auto-args; a library loaded with dlopen is not listed.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/tool.h"

static int try_dir(const char *dir, const char *origin, const char *name, char *out, size_t outlen)
{
	char d[PATH_MAX];
	if (!strncmp(dir, "$ORIGIN", 7))
		snprintf(d, sizeof(d), "%s%s", origin, dir + 7);
	else if (!strncmp(dir, "${ORIGIN}", 9))
		snprintf(d, sizeof(d), "%s%s", origin, dir + 9);
	else
		snprintf(d, sizeof(d), "%s", dir[0] ? dir : ".");
	int w = snprintf(out, outlen, "%s/%s", d, name);
	return w > 0 && (size_t)w < outlen && access(out, R_OK) == 0;
}

/* each directory of a ':'-separated list */
static int try_list(const char *list, const char *origin, const char *name, char *out, size_t outlen)
{
	char buf[4096];
	if (!list || !*list || strlen(list) >= sizeof(buf))
		return 0;
	strcpy(buf, list);
	for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if (try_dir(d, origin, name, out, outlen))
			return 1;
	return 0;
}

size_t needed_libs(const char *prog, char ***out)
{
	static const char *const sysdirs[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
					       "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib" };
	int fd = open(prog, O_RDONLY | O_CLOEXEC);
	char origin[PATH_MAX], tmp[PATH_MAX], *rpath = NULL, *runpath = NULL;
	const char *names[256];
	size_t n_names = 0, n = 0;
	Elf *e;
	Elf_Scn *scn = NULL;

	*out = NULL;
	if (fd < 0)
		return 0;
	if (!realpath(prog, tmp))
		snprintf(tmp, sizeof(tmp), "%s", prog);
	snprintf(origin, sizeof(origin), "%s", dirname(tmp));   /* $ORIGIN: the directory of the program */
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			if (!gelf_getdyn(d, (int)i, &dyn))
				continue;
			const char *s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED && n_names < sizeof(names) / sizeof(names[0]))
				names[n_names++] = s;
			else if (dyn.d_tag == DT_RPATH)
				rpath = xstrdup(s);
			else if (dyn.d_tag == DT_RUNPATH)
				runpath = xstrdup(s);
		}
	}
	*out = xcalloc(n_names + 1, sizeof(**out));
	for (size_t i = 0; i < n_names; i++) {
		char path[PATH_MAX];
		int found = 0;
		if (strchr(names[i], '/')) {
			snprintf(path, sizeof(path), "%s", names[i]);
			found = access(path, R_OK) == 0;
		}
		if (!found && !runpath)
			found = try_list(rpath, origin, names[i], path, sizeof(path));
		if (!found)
			found = try_list(getenv("LD_LIBRARY_PATH"), origin, names[i], path, sizeof(path));
		if (!found)
			found = try_list(runpath, origin, names[i], path, sizeof(path));
		for (size_t k = 0; !found && k < sizeof(sysdirs) / sizeof(sysdirs[0]); k++)
			found = try_dir(sysdirs[k], origin, names[i], path, sizeof(path));
		if (found)
			(*out)[n++] = xstrdup(path);
	}
	elf_end(e);
	close(fd);
	free(rpath);
	free(runpath);
	return n;
}
