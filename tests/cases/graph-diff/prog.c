/* graph --diff: the same program run twice with different work.
 * work() calls leaf() once per argument and then extra() when there are
 * more than two, else old() (no library call: the paths are the program's). */

#define noinline __attribute__((noinline))

volatile int sink;

noinline void leaf(void) { sink++; }
noinline void extra(void) { leaf(); }
noinline void old(void) { sink--; }

noinline void work(int n)
{
	for (int i = 0; i < n; i++)
		leaf();
	if (n > 2)
		extra();
	else
		old();
}

int main(int argc, char **argv)
{
	(void)argv;
	work(argc - 1);
	return 0;
}
