/* work() sleeps argv[1] microseconds: runs with 20000, 250000 and 0
 * make changes of 100 ms and more (a duration of 10 characters, no
 * padding left for a sign) and of more than +1000% */
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) void work(int us)
{
	if (us > 0)
		usleep((useconds_t)us);
}

int main(int argc, char **argv)
{
	work(argc > 1 ? atoi(argv[1]) : 20000);
	return 0;
}
