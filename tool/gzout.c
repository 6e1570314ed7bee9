/*
 * gzout.c - `export -o FILE.gz`: the export compressed with zlib as it is
 * written (gzip format, which Perfetto's UI, trace_processor, speedscope
 * and chrome://tracing all open).  A stdio stream whose writes go through
 * deflate into the real output stream, so every exporter stays unaware of
 * it; closing it ends the gzip member but leaves the real stream open for
 * the caller's flush, fsync and rename.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "tool/tool.h"

struct gzout {
	z_stream z;
	FILE *raw;
	int failed;
	unsigned char buf[1 << 16];
};

static int drain(struct gzout *g, int flush)
{
	int ret;
	do {
		g->z.next_out = g->buf;
		g->z.avail_out = sizeof(g->buf);
		ret = deflate(&g->z, flush);
		if (ret == Z_STREAM_ERROR)
			return -1;
		size_t have = sizeof(g->buf) - g->z.avail_out;
		if (have && fwrite(g->buf, 1, have, g->raw) != have)
			return -1;
	} while (g->z.avail_out == 0);
	return flush == Z_FINISH && ret != Z_STREAM_END ? -1 : 0;
}

static ssize_t gz_write(void *cookie, const char *data, size_t n)
{
	struct gzout *g = cookie;
	if (g->failed)
		return -1;
	g->z.next_in = (unsigned char *)data;
	g->z.avail_in = (uInt)n;
	if (drain(g, Z_NO_FLUSH)) {
		g->failed = 1;
		return -1;
	}
	return (ssize_t)n;
}

static int gz_close(void *cookie)
{
	struct gzout *g = cookie;
	int bad = g->failed || drain(g, Z_FINISH);
	deflateEnd(&g->z);
	free(g);
	return bad ? -1 : 0;
}

int gz_suffix(const char *path)
{
	size_t n = strlen(path);
	return n > 3 && !strcmp(path + n - 3, ".gz");
}

FILE *gz_stream(FILE *raw)
{
	static const cookie_io_functions_t io = { .write = gz_write, .close = gz_close };
	struct gzout *g = xcalloc(1, sizeof(*g));
	FILE *f;
	g->raw = raw;
	/* windowBits 15 + 16: a gzip header and trailer around the deflate data */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		die("cannot start compressing: zlib refused");
	f = fopencookie(g, "w", io);
	if (!f)
		die("cannot start compressing: %s", strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return f;
}
