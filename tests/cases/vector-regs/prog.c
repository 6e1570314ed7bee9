/* Vector arguments and return values through the trampolines' general
 * path (a string value, a thread's first call, a filter), in ymm registers
 * (built with -mavx2, run only where the processor has AVX2) and zmm ones
 * (where it has AVX-512F): their upper halves must come back as they went
 * in.  glibc's AVX2 string functions end in vzeroupper, which clears them,
 * and the general path calls such functions (strnlen for a string value,
 * getenv and memcpy for a thread's first call).  A library call too:
 * libmvec's 4-lane sin takes and returns a ymm register. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <immintrin.h>

#define NI __attribute__((noinline))

__m256d _ZGVdN4v_sin(__m256d x);      /* libmvec */

static const char tag_text[] = "a tag longer than sixty-four bytes, so that strnlen takes its vector loop";

/* each lane plus its tag's length: the argument's upper lanes are read */
NI __m256d shift(const char *tag, __m256d v)
{
	return _mm256_add_pd(v, _mm256_set1_pd((double)strlen(tag)));
}

/* the return value's upper lanes: ymm0 through the return trampoline
 * (the tag adds 0, and is read: clang -O2 passes no unread argument) */
NI __m256d twice(const char *tag, __m256d v)
{
	return _mm256_add_pd(_mm256_add_pd(v, v), _mm256_set1_pd((double)(tag[0] - 'a')));
}

NI double lanes(__m256d v)
{
	double o[4];
	_mm256_storeu_pd(o, v);
	return o[0] + 10 * o[1] + 100 * o[2] + 1000 * o[3];
}

NI void run_avx2(const char *who)
{
	long bad = 0;
	double last = 0, s = 0;
	for (int i = 0; i < 1000; i++) {
		__m256d v = _mm256_set_pd(4 + i, 3, 2, 1);
		v = shift(tag_text, v);
		v = twice(tag_text, v);
		last = lanes(v);
		/* ((1..4) + 73) * 2 */
		if (last != 148 + 10 * 150 + 100 * 152 + 1000 * (2.0 * (77 + i)))
			bad++;
		s += lanes(_ZGVdN4v_sin(_mm256_set_pd(0.4 + i, 0.3, 0.2, 0.1)));
	}
	printf("%s avx2: %ld wrong, last %.0f, sines %.17g\n", who, bad, last, s);
}

__attribute__((target("avx512f"))) NI __m512d shift512(const char *tag, __m512d v)
{
	return _mm512_add_pd(v, _mm512_set1_pd((double)strlen(tag)));
}

__attribute__((target("avx512f"))) NI void run_avx512(const char *who)
{
	long bad = 0;
	for (int i = 0; i < 1000; i++) {
		__m512d v = shift512(tag_text, _mm512_set_pd(8, 7, 6, 5, 4, 3, 2, 1));
		double o[8];
		_mm512_storeu_pd(o, v);
		for (int k = 0; k < 8; k++)
			bad += o[k] != k + 1 + 73;
	}
	printf("%s avx512: %ld wrong\n", who, bad);
}

static void *thread_main(void *arg)
{
	(void)arg;
	run_avx2("thread");
	return NULL;
}

int main(void)
{
	pthread_t t;
	run_avx2("main");
	if (__builtin_cpu_supports("avx512f"))
		run_avx512("main");
	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);
	return 0;
}
