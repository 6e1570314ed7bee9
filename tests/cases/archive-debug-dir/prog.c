/* fntrace archive --debug-dir, --prefix-map: a stripped program whose debug
 * file only --debug-dir finds, then moved from where it was recorded */
__attribute__((noinline)) static int sq(int x)
{
	return x * x;
}

int main(void)
{
	return sq(3) == 9 ? 0 : 1;
}
