/* an instrumented library whose own library calls belong to it */
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int help_work(const char *s)
{
	return (int)strlen(s) + (int)strtol(s, NULL, 10);
}
