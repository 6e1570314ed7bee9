// svg and html exports in a real browser: a small tree with a template
// (a '<' in its name, to be escaped in XML and JSON) and a second thread
#include <pthread.h>

template <class T> __attribute__((noinline)) T twice(T x) { __asm__ volatile(""); return x + x; }
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + twice<int>(x); }
__attribute__((noinline)) int fact(int n) { return n <= 1 ? leaf(0) : n * fact(n - 1); }
__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += mid(i);
	return s + fact(4);
}
__attribute__((noinline)) void *worker(void *) { static int r; r = work(2); return &r; }
int main()
{
	pthread_t t;
	pthread_create(&t, nullptr, worker, nullptr);
	pthread_join(t, nullptr);
	return work(3) == 36 ? 0 : 1;
}
