/* fntrace archive -o: an output inside the trace directory is refused */
__attribute__((noinline)) static int sq(int x)
{
	return x * x;
}

int main(void)
{
	return sq(3) == 9 ? 0 : 1;
}
