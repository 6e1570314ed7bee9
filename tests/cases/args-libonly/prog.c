/* -A/-R and --auto-args when only a shared library, not the executable, is
 * built with -pg -mfentry: record used to refuse them */
long lib_entry(long x);
int main(void)
{
	return lib_entry(5) == 16 ? 0 : 1;
}
