/* the daemon idiom: close every descriptor, then open /dev/null expecting
 * fd 0 and dup it to 1 and 2.  Traced calls in between fill chunks, so the
 * runtime reopens its (closed) trace file right there: it must not take
 * fd 0, or the daemon's stderr goes into the trace header. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }

int main(void)
{
	static const char noise[] = "daemon stderr noise, must reach /dev/null and nothing else\n";
	int fd, a, b;

	for (int i = 0; i < 1024; i++)
		close(i);
	for (int i = 0; i < 20000; i++)            /* several 16 KiB chunks: reopens the trace */
		work(i);
	fd = open("/dev/null", O_RDWR);
	a = dup(0);
	b = dup(0);
	if (fd != 0 || a != 1 || b != 2)
		return 10 + fd;                        /* 10: ok, 11: the runtime took fd 0 */
	for (int i = 0; i < 100; i++)
		if (write(2, noise, strlen(noise)) < 0)
			return 4;
	for (int i = 0; i < 20000; i++)
		work(i);
	return 0;
}
