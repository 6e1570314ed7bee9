/*
 * nocalls.c - for the start-up figure: built with -finstrument-functions but
 * its only function is not instrumented, so it makes no traced call.
 */
__attribute__((no_instrument_function)) int main(void)
{
	return 0;
}
