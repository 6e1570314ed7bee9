/* --auto-args and two static functions of one name and different
 * signatures, in two files (ca.c, cb.c): a spec by name cannot tell them
 * apart, so neither gets one (before, both got the first one found, and
 * helper("hello", 1.5) showed as helper(x=-1044631536)). */
#include <stdio.h>

int a_api(int);
const char *b_api(const char *);

int main(void)
{
	printf("%d %s\n", a_api(41), b_api("hello"));
	return 0;
}
