/*
 * libc-protos.c - what `record` knows about library calls' arguments: the
 * prototypes `--auto-args` uses (a small table of common libc functions as
 * -A/-R item lists, format/argspec.h, since libc's own DWARF is rarely
 * installed; only what is certain: for printf-like functions, the format
 * string), and which -A/-R specs a -finstrument-functions build cannot
 * serve (they name the program's own functions, not the ones it imports).
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/tool.h"

static const char libc_protos[] =
	"open@arg1/s,arg2/x,retval;"
	"open64@arg1/s,arg2/x,retval;"
	"openat@arg1,arg2/s,arg3/x,retval;"
	"read@arg1,arg2/p,arg3/u64,retval/i64;"
	"write@arg1,arg2/p,arg3/u64,retval/i64;"
	"close@arg1,retval;"
	"malloc@arg1/u64,retval/p;"
	"calloc@arg1/u64,arg2/u64,retval/p;"
	"realloc@arg1/p,arg2/u64,retval/p;"
	"free@arg1/p;"
	"strlen@arg1/s,retval/u64;"
	"strcmp@arg1/s,arg2/s,retval;"
	"strncmp@arg1/s,arg2/s,arg3/u64,retval;"
	"strcpy@arg1/p,arg2/s,retval/p;"
	"strdup@arg1/s,retval/p;"
	"memcpy@arg1/p,arg2/p,arg3/u64,retval/p;"
	"memmove@arg1/p,arg2/p,arg3/u64,retval/p;"
	"memset@arg1/p,arg2,arg3/u64,retval/p;"
	"memcmp@arg1/p,arg2/p,arg3/u64,retval;"
	"puts@arg1/s,retval;"
	"printf@arg1/s,retval;"
	"fprintf@arg1/p,arg2/s,retval;"
	"sprintf@arg1/p,arg2/s,retval;"
	"snprintf@arg1/p,arg2/u64,arg3/s,retval;"
	"fopen@arg1/s,arg2/s,retval/p;"
	"fclose@arg1/p,retval;"
	"fputs@arg1/s,arg2/p,retval;"
	"qsort@arg1/p,arg2/u64,arg3/u64,arg4/p;"
	"pthread_create@arg1/p,arg2/p,arg3/p,arg4/p,retval;"
	"pthread_join@arg1/x,arg2/p,retval;"
	"getenv@arg1/s,retval/s;"
	"sleep@arg1/u32,retval/u32;"
	"usleep@arg1/u32,retval";

const char *libc_auto_specs(void)
{
	return libc_protos;
}

/* Does glob name a function the program defines and none it imports? */
static int names_own_function(Elf *e, const char *glob)
{
	Elf_Scn *scn = NULL;
	int own = 0, imported = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !(n = elf_strptr(e, sh.sh_link, sym.st_name)) || fnmatch(glob, n, 0))
				continue;
			if (sym.st_shndx == SHN_UNDEF)
				imported = 1;
			else
				own = 1;
		}
	}
	return own && !imported;
}

char *libcall_unserved_spec(const char *prog, const char *specs)
{
	int fd = open(prog, O_RDONLY | O_CLOEXEC);
	char *found = NULL;
	Elf *e;
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF) {
		for (const char *p = specs; *p && !found;) {
			const char *end = strchr(p, ';'), *at;
			size_t len = end ? (size_t)(end - p) : strlen(p);
			char *glob = xmalloc(len + 1);
			memcpy(glob, p, len);
			glob[len] = 0;
			if ((at = strrchr(glob, '@')) != NULL)
				glob[at - glob] = 0;
			if (names_own_function(e, glob))
				found = glob;
			else
				free(glob);
			p += len + (end ? 1 : 0);
		}
	}
	elf_end(e);
	close(fd);
	return found;
}
