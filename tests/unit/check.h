/*
 * check.h - the unit tests' assertion counter: CHECK(cond, fmt, ...) counts a
 * pass or prints the failure with its place; each test ends by printing
 * "N passed, N failed" from n_pass and n_fail.
 */
#ifndef FNT_TEST_CHECK_H
#define FNT_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int n_pass, n_fail;

#define CHECK(cond, ...) check_((cond), __FILE__, __LINE__, __VA_ARGS__)

static int check_(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	if (ok) {
		n_pass++;
		return 1;
	}
	n_fail++;
	printf("FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return 0;
}

#endif
