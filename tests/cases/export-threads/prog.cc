// Exports round trip: three named threads with exact call counts, recursion
// (inclusive time counted once), and C++ names that JSON must escape: a
// user-defined literal operator (its name holds quotes) and a template.
#include <pthread.h>
#include <stdio.h>
#define NI __attribute__((noinline))
NI unsigned long long operator""_q(unsigned long long x) { __asm__ volatile(""); return x + 1; }
template <typename T> NI T twice(T x) { __asm__ volatile(""); return x * 2; }
NI int work(int x) { __asm__ volatile(""); return x + 1; }
NI int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
NI void *run(void *arg) {
	long n = (long)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker-%ld", n);
	pthread_setname_np(pthread_self(), name);
	for (long i = 0; i < n * 10; i++) work((int)i);
	fact((int)n + 2);
	return nullptr;
}
int main() {
	pthread_t t[3];
	for (long i = 0; i < 3; i++) pthread_create(&t[i], nullptr, run, (void *)(i + 1));
	for (int i = 0; i < 3; i++) pthread_join(t[i], nullptr);
	return (int)(7_q + twice<long>(3) + twice<int>(1) - 16);
}
