/* Two traced functions whose time goes into library calls: fill() into
 * memset, which the dynamic linker binds to the CPU's variant
 * (__memset_avx2_unaligned_erms...: an IFUNC), and say() into fputs, which
 * libc defines as _IO_fputs (fputs is its weak alias).  Each call is long
 * (16 MB, 4 MB), so that perf's samples land in the library functions under
 * a known stack, main -> fill -> memset and main -> say -> fputs, and
 * almost never in fntrace's hooks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (16u << 20)
#define LINE (4u << 20)

static char *buf, *line;
static FILE *null;
static volatile unsigned sink;

__attribute__((noinline)) void fill(int i)
{
	memset(buf, i, BIG);
	sink += (unsigned char)buf[i];
}

__attribute__((noinline)) void say(void)
{
	fputs(line, null);
	sink++;
}

int main(void)
{
	buf = malloc(BIG);
	line = malloc(LINE + 1);
	null = fopen("/dev/null", "w");
	if (!buf || !line || !null)
		return 1;
	memset(line, 'x', LINE);    /* (not a constant: the compiler keeps fputs) */
	line[LINE] = 0;
	setvbuf(null, NULL, _IONBF, 0);
	for (int i = 0; i < 300; i++) {
		fill(i);
		say();
	}
	printf("done %u\n", sink);
	return 0;
}
