/* Text the traced program controls, with bytes that are not UTF-8 and
 * control characters: its command line (case.json's arguments, "\xe9t\xe9.txt"
 * and "a\x1b[1mb"), thread names, named scopes (function names) and marks.
 * Every output must stay well-formed (svg, html, perfetto: U+FFFD for the
 * bad bytes) and no text view may write the control characters raw (a
 * newline would split a line, an escape sequence would reach the user's
 * terminal).  "caf\xc3\xa9" is valid UTF-8: it passes unchanged; U+009B
 * (a C1 control) is escaped in text views too. */
#define FNT_WEAK
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "fntrace.h"

volatile int sink;

__attribute__((noinline)) void leaf(int i)
{
	sink += i;
}

static void *worker(void *name)
{
	pthread_setname_np(pthread_self(), name);
	{
		FNT_SCOPE_NAMED("sc\xe8ne");
		leaf(1);
		usleep(10000);
		fnt_capture_stack();
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, "te\xe9");
	pthread_join(t, NULL);
	pthread_create(&t, NULL, worker, "\x1b[31mred\nx");
	pthread_join(t, NULL);
	{
		FNT_SCOPE_NAMED("caf\xc3\xa9");
		leaf(2);
		usleep(20000);          /* wide enough to be drawn in the flame graph */
	}
	{
		FNT_SCOPE_NAMED("two\nlines\x1b[2J");
		leaf(3);
		usleep(20000);
	}
	fnt_mark("m\xff");
	fnt_mark("mark\nsplit\x1b]0;title\x07");
	fnt_mark("c1 \xc2\x9b" "2J");      /* U+009B: CSI to some terminals */
	printf("%d\n", sink);
	return 0;
}
