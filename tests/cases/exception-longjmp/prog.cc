// longjmp after C++ exceptions.  clang's -finstrument-functions calls no
// exit hook for the frames an exception unwinds, so the runtime's count of
// open calls stays higher than the calls the reader sees open; a longjmp's
// UNWIND record, counted by the runtime, then closed too many calls: main
// itself, here, and every later call showed at the top level.
#include <csetjmp>
#include <cstdio>
#include <sys/wait.h>
#include <unistd.h>

static std::jmp_buf top, here;

__attribute__((noinline)) void leaf(int i) { std::printf("leaf %d\n", i); }

__attribute__((noinline)) void thrower(int x) { throw x; }

__attribute__((noinline)) void deep(int x) { thrower(x); }

// an exception unwinds two traced frames and lands here
__attribute__((noinline)) void catcher(int x)
{
	try {
		deep(x);
	} catch (int) {
		leaf(x);
	}
}

__attribute__((noinline)) void jumper(std::jmp_buf env) { std::longjmp(env, 1); }

__attribute__((noinline)) void via(int n)
{
	if (n)
		via(n - 1);
	else
		jumper(top);
}

__attribute__((noinline)) void work()
{
	catcher(1);
	catcher(2);
	via(2);
}

// the setjmp is taken before an exception lands in the same frame, and
// the longjmp comes back to it from a callee
__attribute__((noinline)) void same_frame()
{
	if (setjmp(here) == 0) {
		try {
			deep(7);
		} catch (int) {
			leaf(7);
		}
		jumper(here);
	}
	leaf(8);
}

__attribute__((noinline)) void hop() { jumper(here); }

// the setjmp is taken after the exception landed
__attribute__((noinline)) void after()
{
	catcher(3);
	if (setjmp(here) == 0)
		hop();
	leaf(9);
}

int main(int argc, char **argv)
{
	if (setjmp(top) == 0)
		work();
	leaf(0);
	same_frame();
	leaf(10);
	after();
	leaf(11);
	if (argc < 2)
		return 0;
	// a child forked now inherits main's frame (the reader finds the
	// parent's open calls at the fork through the same counts)
	(void)argv;
	pid_t pid = fork();
	if (pid == 0) {
		leaf(12);
		return 0;
	}
	waitpid(pid, nullptr, 0);
	return 0;
}
