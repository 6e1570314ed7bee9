/*
 * count.c - linked into the counting build only: counts function entries
 * (all threads; an atomic is fine here, this build is never timed).
 */
#define NOI __attribute__((no_instrument_function, visibility("default")))

static unsigned long long calls;

NOI void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
}

NOI void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

NOI unsigned long long bench_calls(void)
{
	return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}
