/* A generator on a ucontext coroutine, suspended inside traced frames on
 * its own stack when the process forks: in the child (and the parent) it
 * must resume and return through those frames, whose real return
 * addresses the runtime keeps for the parked stack (-pg, patchable
 * entries).  The child's state is set up again at its first event; the
 * parked stacks must survive that. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static ucontext_t main_ctx, gen_ctx;
static int value, done;

__attribute__((noinline)) void yield(int v)
{
	value = v;
	swapcontext(&gen_ctx, &main_ctx);
}

__attribute__((noinline)) void produce(int i) { yield(i * i); }

__attribute__((noinline)) void generator(void)
{
	for (int i = 1; i <= 4; i++)
		produce(i);
	done = 1;
}

__attribute__((noinline)) int next(void)
{
	swapcontext(&main_ctx, &gen_ctx);
	return done ? -1 : value;
}

__attribute__((noinline)) void consume(const char *who, int v) { printf("%s got %d\n", who, v); fflush(stdout); }

int main(void)
{
	static char stack[64 * 1024];
	getcontext(&gen_ctx);
	gen_ctx.uc_stack.ss_sp = stack;
	gen_ctx.uc_stack.ss_size = sizeof(stack);
	gen_ctx.uc_link = &main_ctx;
	makecontext(&gen_ctx, generator, 0);
	consume("before", next());
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 3;
	const char *who = pid ? "parent" : "child";
	for (int v; (v = next()) >= 0;)
		consume(who, v);
	if (pid) {
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 4;
	}
	printf("%s done\n", who);
	return 0;
}
