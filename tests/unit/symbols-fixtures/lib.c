/* test-symbols fixture: a shared library (ET_DYN, not an executable) */
__attribute__((noinline)) int lib_square(int x) /* @lib_square */
{
	__asm__ volatile("");
	return x * x;
}

int lib_entry(int x) /* @lib_entry */
{
	return lib_square(x) + 1;
}
