/* Recording switched off and on by the program (fnt_disable/fnt_enable),
 * and what the views say of the calls whose exits or entries it hid:
 *   fork:   recording off around fork(); the child switches it on: the
 *           calls it inherited were entered before it began, not while
 *           recording was off;
 *   thread: a thread that ended before recording went off for good, and
 *           main, which never returns (exit) once it is off;
 *   toggle: a million switches (a flight recorder's file stays its size);
 *   ring:   switched off and on early, then a long run under --ring: the
 *           calls before the history kept are "before the history start";
 *   ringoff: a long run, then switched off, and on inside turn_on(): its
 *           return is of a call entered while recording was off;
 *   forkoff: the child switches off and returns from main; bye(), run by
 *           exit, switches on: bye was entered while off, main before;
 *   coro:   r(2) switches to a coroutine and back, switches recording off
 *           and calls r(1), which switches to the coroutine, whose cy()
 *           returns (it was open when recording went off): that return is
 *           the coroutine stack's, and r(1)'s, entered while off, is not
 *           written;
 *   retoff: quit() returns while recording is off, inside resume(), which
 *           switches it on again and calls leaf(): quit's return is
 *           written, and leaf is not inside it;
 *   jmpoff: the same, with a longjmp while recording is off out of calls
 *           entered since: from below jquit(), whose setjmp was made
 *           before it went off, and from below jhold(), entered while off
 *           and holding the setjmp: jquit's and jquit2's returns are
 *           written (before, the calls the jumps left took them);
 *   jmpcoro: a longjmp while off from a coroutine's stack to the main
 *           stack, and back: runner()'s return is written, and the calls
 *           after it are main's;
 *   jmpaway: while off, a coroutine jumps back to the main stack for good
 *           (out of deep() into outer()), and a handler on a sigaltstack
 *           jumps back into s3(): outer's and s3's returns are written
 *           (before, the main stack's count kept the calls the jumps left);
 *           and the first again, with a signal handled on the sigaltstack
 *           before any hook on the main stack (outer3); and a setjmp made
 *           right after such a handler returned, before any hook saw the
 *           main stack again, with a longjmp there (outer4);
 *   sigstop: 2000 timer signals whose handler calls stop(), which switches
 *           recording off (main switches it on again): a stop() inside a
 *           hook loses its entry (recording on) and its return (off), and
 *           both are counted. */
#include <pthread.h>
#include <setjmp.h>
#include <ucontext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fntrace.h"

__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int child_work(void) { return leaf(1) + leaf(2); }

__attribute__((noinline)) int spawn(void)
{
	fnt_disable();
	pid_t pid = fork();
	if (pid == 0) {
		fnt_enable();
		child_work();
		return 1;
	}
	int st;
	waitpid(pid, &st, 0);
	fnt_enable();
	return 0;
}
__attribute__((noinline)) int outer(void) { return spawn(); }

__attribute__((noinline)) void inner(void) { leaf(3); pthread_exit(NULL); }
__attribute__((noinline)) void *worker(void *arg) { (void)arg; inner(); return NULL; }
__attribute__((noinline)) void later(void) { usleep(2000); }

__attribute__((noinline)) void noisy(void) { __asm__ volatile(""); }

__attribute__((noinline)) void turn_on(void) { fnt_enable(); leaf(7); }
__attribute__((noinline)) void bye(void) { fnt_enable(); leaf(1); }

__attribute__((noinline)) void quit(void) { leaf(4); fnt_disable(); }
__attribute__((noinline)) void resume(void) { quit(); leaf(5); fnt_enable(); leaf(6); }

static jmp_buf jb;
__attribute__((noinline)) void dive(int n) { if (n == 0) longjmp(jb, 1); dive(n - 1); leaf(n); }
__attribute__((noinline)) void jquit(void) { leaf(4); fnt_disable(); if (!setjmp(jb)) dive(3); }
__attribute__((noinline)) void jhold(void) { if (!setjmp(jb)) dive(2); }
__attribute__((noinline)) void jquit2(void) { fnt_disable(); jhold(); }
__attribute__((noinline)) void jresume(void)
{
	jquit();
	leaf(5);
	fnt_enable();
	leaf(6);
	jquit2();
	fnt_enable();
	leaf(7);
}

static jmp_buf mj, cj;
static ucontext_t jc_ctx, jm_ctx;
static char jc_stack[65536];
__attribute__((noinline)) void cdeep(int n)
{
	if (n == 0) {
		if (!setjmp(cj))
			longjmp(mj, 1);
		return;
	}
	cdeep(n - 1);
	leaf(n);
}
__attribute__((noinline)) void cwork(void) { fnt_disable(); cdeep(2); leaf(5); }
__attribute__((noinline)) void jco(void) { cwork(); longjmp(mj, 2); }
__attribute__((noinline)) void runner(void)
{
	int r = setjmp(mj);
	if (r == 0)
		swapcontext(&jm_ctx, &jc_ctx);
	else if (r == 1) {
		leaf(7);
		longjmp(cj, 1);
	}
	leaf(8);
}

static jmp_buf ab;
static sigjmp_buf sb;
static ucontext_t am_ctx, ac_ctx;
static char ac_stack[65536], alt_stack[65536];
__attribute__((noinline)) void deep(int n) { if (n == 0) longjmp(ab, 1); deep(n - 1); leaf(n); }
__attribute__((noinline)) void aco(void) { deep(2); }
__attribute__((noinline)) void a1(void) { swapcontext(&am_ctx, &ac_ctx); leaf(3); }
__attribute__((noinline)) void outer2(void) { fnt_disable(); if (!setjmp(ab)) a1(); leaf(9); }
static void on_usr2(int sig) { leaf(sig); }
__attribute__((noinline)) void outer3(void)
{
	fnt_disable();
	if (!setjmp(ab))
		a1();
	raise(SIGUSR2);
	leaf(9);
}
__attribute__((noinline)) void jb2(void) { longjmp(ab, 1); }
__attribute__((noinline)) void ja2(void) { jb2(); leaf(4); }
__attribute__((noinline)) void outer4(void)
{
	fnt_disable();
	raise(SIGUSR2);
	if (!setjmp(ab))
		ja2();
	leaf(9);
}
__attribute__((noinline)) void hdeep(int n) { if (n == 0) siglongjmp(sb, 1); hdeep(n - 1); leaf(n); }
static void on_usr1(int sig) { (void)sig; hdeep(2); }
__attribute__((noinline)) void spin(int n) { if (n == 0) { raise(SIGUSR1); return; } spin(n - 1); leaf(3); }
__attribute__((noinline)) void s3mid(void) { fnt_disable(); spin(3); }
__attribute__((noinline)) void s3(void) { if (!sigsetjmp(sb, 1)) s3mid(); leaf(9); }

static volatile int hits, stopped;
__attribute__((noinline)) void stop(void) { fnt_disable(); stopped = 1; }
__attribute__((no_instrument_function)) static void on_alarm(int sig)
{
	(void)sig;
	/* exactly 2000 stop()s: a signal between the loop's last turn and
	 * the timer's end called a 2001st, which the check did not count */
	if (!stopped && hits < 2000) {
		hits++;
		stop();
	}
}
__attribute__((noinline)) void work(int n) { if (n) work(n - 1); leaf(n); }

static ucontext_t main_ctx, co_ctx;
static char co_stack[65536];
__attribute__((noinline)) void cy(void) { swapcontext(&co_ctx, &main_ctx); }
__attribute__((noinline)) void co(void) { cy(); swapcontext(&co_ctx, &main_ctx); leaf(9); }
__attribute__((noinline)) void r(int n)
{
	if (n == 2) {
		swapcontext(&main_ctx, &co_ctx);
		fnt_disable();
		r(1);
		fnt_enable();
		leaf(2);
	} else {
		swapcontext(&main_ctx, &co_ctx);
	}
}

__attribute__((noinline)) long long long_running(int n)
{
	long long s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

/* ctx, made to run fn on stack, then back to link (NULL: the thread ends);
 * not traced: the runs assert what main calls */
__attribute__((no_instrument_function)) static void make_co(ucontext_t *ctx, char *stack, size_t size, ucontext_t *link, void (*fn)(void))
{
	getcontext(ctx);
	ctx->uc_stack.ss_sp = stack;
	ctx->uc_stack.ss_size = size;
	ctx->uc_link = link;
	makecontext(ctx, fn, 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "fork")) {
		printf("%s\n", outer() ? "child" : "parent");
	} else if (!strcmp(mode, "thread")) {
		pthread_t t;
		pthread_create(&t, NULL, worker, NULL);
		pthread_join(t, NULL);
		later();
		fnt_disable();
		printf("thread\n");
		exit(0);        /* main's return never comes */
	} else if (!strcmp(mode, "toggle")) {
		for (int i = 0; i < 1000000; i++) {
			fnt_disable();
			noisy();
			fnt_enable();
		}
		printf("toggled\n");
	} else if (!strcmp(mode, "ringoff")) {
		printf("%lld\n", long_running(2000000));
		fnt_disable();
		turn_on();
		leaf(8);
	} else if (!strcmp(mode, "forkoff")) {
		pid_t pid = fork();
		if (pid == 0) {
			atexit(bye);
			leaf(2);
			fnt_disable();
			return 0;
		}
		waitpid(pid, NULL, 0);
		printf("forked\n");
	} else if (!strcmp(mode, "coro")) {
		make_co(&co_ctx, co_stack, sizeof(co_stack), &main_ctx, co);
		r(2);
		leaf(3);
		printf("coro\n");
	} else if (!strcmp(mode, "retoff")) {
		resume();
		printf("retoff\n");
	} else if (!strcmp(mode, "jmpoff")) {
		jresume();
		printf("jmpoff\n");
	} else if (!strcmp(mode, "jmpcoro")) {
		make_co(&jc_ctx, jc_stack, sizeof(jc_stack), NULL, jco);
		runner();
		fnt_enable();
		leaf(1);
		printf("jmpcoro\n");
	} else if (!strcmp(mode, "jmpaway")) {
		make_co(&ac_ctx, ac_stack, sizeof(ac_stack), &am_ctx, aco);
		outer2();
		fnt_enable();
		leaf(1);
		stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) };
		sigaltstack(&ss, NULL);
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sa.sa_flags = SA_ONSTACK;
		sigaction(SIGUSR1, &sa, NULL);
		s3();
		fnt_enable();
		leaf(2);
		make_co(&ac_ctx, ac_stack, sizeof(ac_stack), &am_ctx, aco);
		sa.sa_handler = on_usr2;
		sigaction(SIGUSR2, &sa, NULL);
		outer3();
		fnt_enable();
		leaf(3);
		outer4();
		fnt_enable();
		leaf(4);
		printf("jmpaway\n");
	} else if (!strcmp(mode, "sigstop")) {
		struct itimerval it = { { 0, 50 }, { 0, 50 } }, none = { { 0, 0 }, { 0, 0 } };
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		while (hits < 2000) {
			work(5);
			if (stopped) {
				/* on first: a stop() between the two would run
				 * with recording off, neither kept nor lost */
				fnt_enable();
				stopped = 0;
			}
		}
		setitimer(ITIMER_REAL, &none, NULL);
		printf("sigstop\n");
	} else if (!strcmp(mode, "ring")) {
		fnt_disable();
		fnt_enable();
		printf("%lld\n", long_running(2000000));
	}
	return 0;
}
