/*
 * nocalls.c - for the start-up figure: built with -finstrument-functions, so
 * it references the hooks (uftrace refuses a binary that does not), but the
 * only instrumented function is never called and main is not instrumented:
 * it makes no traced call.
 */
void never_called(void)
{
}

__attribute__((no_instrument_function)) int main(void)
{
	return 0;
}
