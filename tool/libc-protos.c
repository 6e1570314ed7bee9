/*
 * libc-protos.c - the prototypes `record --auto-args` uses for library
 * calls: a small table of common libc functions as -A/-R item lists
 * (format/argspec.h), since libc's own DWARF is rarely installed.  Only
 * what is certain is listed: for printf-like functions, the format string.
 */
#include <stddef.h>
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
	"printf@arg1/s;"
	"fprintf@arg1/p,arg2/s;"
	"sprintf@arg1/p,arg2/s;"
	"snprintf@arg1/p,arg2/u64,arg3/s;"
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
