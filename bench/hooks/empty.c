/*
 * empty.c - hooks that do nothing: the instrumentation floor.  Built as a
 * preloaded .so (reached through the PLT, like any tracer's runtime) and also
 * linked into the executable (direct calls, for reference).
 */
#define NOI __attribute__((no_instrument_function, noinline, visibility("default")))

NOI void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	__asm__ volatile("");
}

NOI void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	__asm__ volatile("");
}
