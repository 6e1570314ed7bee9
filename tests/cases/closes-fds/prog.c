/* a daemon-like program closes every descriptor, including the runtime's,
 * and opens files of its own that may get the same numbers */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x + 1; }

int main(int argc, char **argv)
{
	char path[4096], buf[64] = "";
	int fds[1024], n = 0;
	(void)argc;
	snprintf(path, sizeof(path), "%s.precious", argv[0]);
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	/* fill the freed numbers with our own file */
	while (n < 1000 && (fds[n] = open(path, O_RDWR | O_CREAT, 0644)) >= 0)
		n++;
	if (write(fds[0], "precious", 8) != 8)
		return 2;
	for (int i = 0; i < 30000; i++)            /* several 16 KiB chunks */
		work(i);
	if (pread(fds[0], buf, sizeof(buf) - 1, 0) != 8 || strcmp(buf, "precious"))
		return 3;
	return 0;
}
