/* -pg -mfentry: four threads and a forked child record their own values */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) int work(int id, int i) { sink++; return id * 100 + i; }

__attribute__((noinline)) void *worker(void *arg)
{
	int id = (int)(long)arg;
	for (int i = 0; i < 3; i++)
		work(id, i);
	return NULL;
}

__attribute__((noinline)) int in_child(int x) { sink++; return -x; }

__attribute__((noinline)) int spawn(int n)
{
	pthread_t t[8];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)(i + 1));
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return n;
}

int main(void)
{
	spawn(4);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		in_child(5);
		return 0;
	}
	waitpid(pid, NULL, 0);
	return 0;
}
