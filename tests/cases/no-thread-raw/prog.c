/* --no-thread and a thread that renames itself through syscall(SYS_prctl)
 * rather than pthread_setname_np or prctl(), which the runtime wraps: the
 * calls after the rename are those of a thread to skip. */
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }

__attribute__((noinline)) void *worker(void *arg)
{
	int s = leaf(1);
	syscall(SYS_prctl, PR_SET_NAME, (const char *)arg, 0, 0, 0);
	for (int i = 0; i < 5; i++)
		s += leaf(i);
	return (void *)(long)s;
}

int main(void)
{
	pthread_t th;
	void *r;
	pthread_create(&th, NULL, worker, "skip-raw");
	pthread_join(th, &r);
	printf("%ld %d\n", (long)r, leaf(0));
	return 0;
}
