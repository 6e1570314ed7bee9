/* report without filters matches calls itself (cmd-report.c); with -D it
 * goes through the call layer (calls.c).  Both must say the same about
 * recursion, mutual recursion, longjmp, a second thread, and a forked child
 * whose only events are the exits of its parent's frames. */
#include <pthread.h>
#include <setjmp.h>
#include <sys/wait.h>
#include <unistd.h>

static jmp_buf env;
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int rec(int n) { return n ? rec(n - 1) + leaf(n) : 0; }
__attribute__((noinline)) int odd(int n);
__attribute__((noinline)) int even(int n) { return n ? odd(n - 1) : 1; }
__attribute__((noinline)) int odd(int n) { return n ? even(n - 1) : 0; }
__attribute__((noinline)) void deep(int n) { if (!n) longjmp(env, 1); deep(n - 1); }
__attribute__((noinline)) void *worker(void *a) { for (int i = 0; i < 100; i++) rec(5); return a; }
__attribute__((noinline)) int spawn(void) {
	pid_t p = fork();
	if (p == 0)
		return 0;   /* the child calls nothing: it only leaves spawn and main */
	int st;
	waitpid(p, &st, 0);
	return 1;
}
int main(void) {
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	for (int i = 0; i < 10; i++) {
		rec(10);
		even(7);
	}
	if (!setjmp(env))
		deep(4);
	pthread_join(t, NULL);
	return spawn() ? 0 : 0;
}
