/* fntrace archive -o: a failed or interrupted archive leaves no file behind */
__attribute__((noinline)) static int sq(int x)
{
	return x * x;
}

int main(void)
{
	return sq(3) == 9 ? 0 : 1;
}
