/* Names and strings that are not valid UTF-8 or that hold JSON and HTML
 * syntax: a thread name, a captured string argument.  Every JSON and CSV
 * fntrace writes must still parse, with U+FFFD where the bytes were bad. */
#include <pthread.h>
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) int show(const char *s)
{
	sink = s[0];
	return s[0];
}

static void *worker(void *arg)
{
	(void)arg;
	/* 15 bytes: a cut 2-byte sequence, a lone continuation, markup, a quote */
	pthread_setname_np(pthread_self(), "w\xc3<t>\x80\"&\x01z");
	sink += show("bad \xff\xfe \"q\" </script> \x01 ok \xe2\x82\xac");
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("%d\n", show("plain"));
	return 0;
}
