// Three copies of hdr.h's static twice(): the program's, and two in
// libhelp.so (help.cc's and help2.cc's).  The views labelled the rows of
// functions sharing a name by source file only: all three were
// "twice [hdr.h]", three rows that nothing told apart.  The module tells
// the program's copy from the library's, the address the library's two.
#include "hdr.h"
int help_one(int x);
int help_two(int x);
int main()
{
	int r = twice(1) + twice(2) + help_one(3) + help_two(4);     /* 2 + 4 + 7 + 10 */
	return r == 23 ? 0 : 1;
}
