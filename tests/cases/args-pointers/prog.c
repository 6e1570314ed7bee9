/* pointers into the program's own module print as &symbol+off: functions,
 * global and static data; others (heap, stack, string literals that no
 * symbol covers) in hex */
#include <stdlib.h>

int lib_fn(int x);              /* in libptr.so */
extern int lib_data[4];

int table[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static long counters[4];
struct point { int x, y; } origin = { 0, 0 };

__attribute__((noinline)) int twice(int x) { __asm__ volatile(""); return 2 * x; }
__attribute__((noinline)) int apply(int (*fn)(int), int x) { __asm__ volatile(""); return fn(x); }
__attribute__((noinline)) int *at(int *base, int i) { __asm__ volatile(""); return base + i; }
__attribute__((noinline)) long *counter(int i) { __asm__ volatile(""); return &counters[i]; }
__attribute__((noinline)) int px(const struct point *p) { __asm__ volatile(""); return p->x; }
__attribute__((noinline)) void *keep(void *p) { __asm__ volatile(""); return p; }

int main(void)
{
	int local = 3;
	void *heap = malloc(16);
	int r = apply(twice, 4);
	r += *at(table, 0) + *at(table, 2);
	*counter(1) += 1;
	r += px(&origin);
	r += apply(lib_fn, 1) - 101 + *at(lib_data, 3) - 8;
	keep(heap);
	keep(&local);
	keep((void *)"a literal");
	free(heap);
	return r == 8 + 1 + 3 ? 0 : 1;
}
