/* -P on a program built with no instrumentation at all: threads, recursion,
 * a switch through a jump table, tail calls, a library callback, and
 * hand-written functions that must be refused (a branch into the first
 * bytes, a loop back to the first instruction, a call first, too short).
 * The program counts its own calls; the trace must agree exactly. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif
static long n_rec, n_sw, n_tail, n_leaf, n_cmp, n_worker;
/* two threads count: atomically, or the program's own counts lose updates */
#define COUNT(n) __atomic_fetch_add(&(n), 1, __ATOMIC_RELAXED)

NOINLINE long leaf(long x)
{
	COUNT(n_leaf);
	return x * 3 + 1;
}

/* not a tail call (the result is mixed after the call) */
NOINLINE long rec(long n)
{
	COUNT(n_rec);
	if (n <= 0)
		return leaf(n);
	long r = rec(n - 1);
	return r ^ (r >> 3) ^ n;
}

/* seven cases: a jump table at -O2 */
NOINLINE long sw(long k)
{
	COUNT(n_sw);
	switch (k) {
	case 0: return rec(3);
	case 1: return 7;
	case 2: return leaf(k) * 5;
	case 3: return 11;
	case 4: return rec(1) + 2;
	case 5: return 99;
	case 6: return leaf(k + 1);
	default: return -1;
	}
}

/* a tail call at -O2 */
NOINLINE long tail(long x)
{
	COUNT(n_tail);
	return sw(x % 7);
}

static NOINLINE int cmp(const void *a, const void *b)
{
	COUNT(n_cmp);
	return *(const int *)a - *(const int *)b;
}

NOINLINE void *worker(void *arg)
{
	long s = 0;
	COUNT(n_worker);
	for (long i = 0; i < 50; i++)
		s += tail(i + (long)arg);
	return (void *)s;
}

/* hand-written functions the patcher must leave alone */
long into_first(long n);        /* a loop whose head is its 3rd byte */
long loop_to_start(long n);     /* a loop whose head is its first instruction */
long call_first(long n);        /* a direct call in its first bytes: it moves */
long icall_first(long n, long (*f)(void));   /* an indirect call there: it cannot */
long hot_part(long n);          /* jumps to its cold part, hot_part.cold, never patched */
long tiny(void);                /* exactly 5 bytes, ret included: it moves whole */
long tiny3(void);               /* 3 bytes, shorter than the jump */
__asm__(".text\n"
	".globl into_first\n.type into_first,@function\ninto_first:\n"
	"  xor %eax,%eax\n"             /* 2 bytes */
	"1: add %rdi,%rax\n"            /* the loop head, inside the first 5 bytes */
	"  dec %rdi\n  jnz 1b\n  ret\n.size into_first,.-into_first\n"
	".globl loop_to_start\n.type loop_to_start,@function\nloop_to_start:\n"
	"  add $1,%rdi\n  sub $2,%rdi\n  cmp $0,%rdi\n  jg loop_to_start\n  mov %rdi,%rax\n  ret\n"
	".size loop_to_start,.-loop_to_start\n"
	".globl call_first\n.type call_first,@function\ncall_first:\n"
	"  call tiny\n  add %rdi,%rax\n  ret\n.size call_first,.-call_first\n"
	".globl icall_first\n.type icall_first,@function\nicall_first:\n"
	"  call *%rsi\n  add %rdi,%rax\n  ret\n.size icall_first,.-icall_first\n"
	".globl hot_part\n.type hot_part,@function\nhot_part:\n"
	"  test %rdi,%rdi\n  jz hot_part.cold\n  mov %rdi,%rax\n  ret\n.size hot_part,.-hot_part\n"
	".type hot_part.cold,@function\nhot_part.cold:\n  mov $-1,%rax\n  ret\n.size hot_part.cold,.-hot_part.cold\n"
	".globl tiny\n.type tiny,@function\ntiny:\n  xor %eax,%eax\n  inc %eax\n  ret\n.size tiny,.-tiny\n"
	".globl tiny3\n.type tiny3,@function\ntiny3:\n  xor %eax,%eax\n  ret\n.size tiny3,.-tiny3\n");

int main(void)
{
	pthread_t t[2];
	long tot = 0;
	void *r;
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &r);
		tot += (long)r;
	}
	int a[6] = { 5, 3, 1, 4, 2, 0 };
	qsort(a, 6, sizeof(int), cmp);
	tot += tail(4) + rec(5);
	long v[7];                      /* one at a time: the order is the program's */
	v[0] = into_first(4);
	v[1] = loop_to_start(10);
	v[2] = call_first(3);
	v[3] = tiny3();
	v[4] = icall_first(5, tiny);
	v[5] = hot_part(0);
	v[6] = hot_part(8);
	printf("tot=%ld a0=%d asm=%ld,%ld,%ld,%ld,%ld,%ld,%ld\n", tot, a[0], v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
	printf("rec=%ld sw=%ld tail=%ld leaf=%ld cmp=%ld worker=%ld\n", n_rec, n_sw, n_tail, n_leaf, n_cmp, n_worker);
	return 0;
}
