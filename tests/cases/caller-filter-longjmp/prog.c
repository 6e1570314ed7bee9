/* record -C and longjmp: the frames a longjmp leaves never return, so a
 * chain of them that led to no -C match was kept in the trace (a test
 * framework's "ignore this test" jump, under record -C of anything). */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static volatile int sink;

__attribute__((noinline)) void target(int i) { sink += i; }
__attribute__((noinline)) void leaf(int i) { sink += i; }

__attribute__((noinline)) void bail(int i)
{
	leaf(i);
	longjmp(env, 1);
}

__attribute__((noinline)) void skipped_test(int i)
{
	leaf(i);
	bail(i);
	leaf(i);          /* never reached */
}

__attribute__((noinline)) void good_test(int i)
{
	leaf(i);
	target(i);
}

__attribute__((noinline)) void bad_after_target(int i)
{
	target(i);
	bail(i);
}

__attribute__((noinline)) void run(void (*t)(int), int i)
{
	if (!setjmp(env))
		t(i);
}

int main(void)
{
	for (int i = 0; i < 3; i++) {
		run(skipped_test, i);
		run(good_test, i);
		run(bad_after_target, i);
	}
	printf("%d\n", sink);
	return 0;
}
