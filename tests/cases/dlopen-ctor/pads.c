/* a plugin built with patchable entries (-fpatchable-function-entry) whose
 * constructor calls the functions -P selects */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

volatile long pad_total;

NOINLINE long pad_step(long i)
{
	return pad_total += i;
}

__attribute__((constructor)) NOINLINE void pad_init(void)
{
	for (long i = 1; i <= 3; i++)
		pad_step(i);
}
