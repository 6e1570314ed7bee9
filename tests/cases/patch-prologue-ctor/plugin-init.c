/* the plugin of patch-prologue-lib, with a constructor that calls the
 * functions -P selects: dlopen runs it before returning */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif
extern volatile long plug_calls;
long plug_run(long n);

__attribute__((constructor)) NOINLINE void plug_init(void)
{
	plug_calls += plug_run(3);
}
