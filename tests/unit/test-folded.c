/* folded stacks: frame names made safe for the format (tool/flame.h) */
#include <string.h>
#include "tests/unit/check.h"
#include "tool/flame.h"

static void clean(const char *in, const char *want)
{
	char buf[256];
	strcpy(buf, in);
	folded_clean_name(buf);
	CHECK(!strcmp(buf, want), "'%s' became '%s', not '%s'", in, buf, want);
}

int main(void)
{
	clean("main", "main");
	clean("ns::f(int, char const*)", "ns::f(int, char const*)");   /* spaces stay */
	clean("operator<", "operator<");
	clean("a;b", "a_b");
	clean("line\nbreak\ttab\x7f", "line_break_tab_");
	clean("f 123", "f_123");            /* would read as a count */
	clean("f 1 2", "f 1_2");
	clean("f123", "f123");
	clean("123", "123");
	clean(" 42", "_42");
	clean("", "_");
	clean("x ", "x ");
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
