/* --nest-libcall: the calls libraries make to each other (libc's stdio
 * allocating stdout's buffer at the first printf) appear under the call */
#include <stdio.h>

__attribute__((noinline)) static void say(int k)
{
	printf("k=%d\n", k);
}

int main(void)
{
	say(1);
	say(2);
	return 0;
}
