/* -A/-R and --auto-args on library calls, in a -finstrument-functions build */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) static int open_it(const char *path)
{
	return open(path, O_RDONLY);
}

int main(void)
{
	int fd = open_it("/etc/passwd");
	void *volatile p = malloc(40);
	printf("opened %d\n", fd >= 0);
	free(p);
	close(fd);
	return 0;
}
