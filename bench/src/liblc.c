/*
 * liblc.c - the shared library of the libcall workload: one trivial
 * function, called through the PLT (built into out/liblc.so without
 * instrumentation, and into out/liblc-fentry.so with -pg -mfentry).
 */
unsigned long lc_step(unsigned long acc, unsigned long i)
{
	return acc * 31 + i;
}
