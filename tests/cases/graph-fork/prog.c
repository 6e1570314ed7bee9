/* A forked child's calls nest under the frames it inherited (main, spawn),
 * in graph, its --callers, the folded, svg and html exports, as in replay:
 * they were roots of their own (child_work;leaf) */
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) int child_work(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += leaf(i);
	return s;
}

__attribute__((noinline)) void spawn(void)
{
	pid_t p = fork();
	if (p == 0) {
		child_work();
		_exit(0);
	}
	waitpid(p, 0, 0);
}

int main(void)
{
	spawn();
	leaf(5);
	return 0;
}
